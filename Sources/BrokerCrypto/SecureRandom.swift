import COpenSSL
import Synchronization

/// Cryptographically secure random bytes from OpenSSL's DRBG.
///
/// Small requests (ids, tokens, salts, nonces: up to `pooledLimit` bytes) are served from a pool that
/// OpenSSL's generator fills `RandomPool.size` bytes at a time. Every `RAND_bytes` call costs about three
/// microseconds whatever its size (OpenSSL 3's CTR-DRBG derives a new key after each one), and a sign-in
/// asks for random bytes five times (68 bytes); the pool makes that one call per some sixty sign-ins. Bytes are
/// served once: each request takes the next unused bytes and the pool zeroes them as it hands them out, so
/// nothing already handed out stays in it. The pool lives in this process only; a process that forks
/// without `exec` must not use it in the child (the broker starts child processes with `posix_spawn`).
public enum SecureRandom {
    /// Requests of at most this many bytes come from the pool; larger ones straight from OpenSSL.
    public static let pooledLimit = 64

    private static let pool = Mutex(RandomPool())

    /// `count` random bytes. OpenSSL's generator does not fail once seeded; if it ever does, the process
    /// stops rather than hand out predictable bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "a negative count of random bytes")
        guard count <= pooledLimit else { return generate(count) }
        return pool.withLock { $0.take(count) }
    }

    /// `count` bytes from OpenSSL's generator, one call.
    static func generate(_ count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        buffer.withUnsafeMutableBufferPointer { fill($0) }
        return buffer
    }

    /// Fills `buffer` from OpenSSL's generator.
    static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        precondition(RAND_bytes(base, Int32(buffer.count)) == 1, "OpenSSL's random generator failed")
    }
}

/// The bytes `SecureRandom` serves small requests from: filled by OpenSSL, taken front to back, zeroed as
/// they are taken, filled again when a request does not fit in what is left.
struct RandomPool: ~Copyable {
    /// Bytes OpenSSL writes per refill.
    static let size = 4096

    private let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: RandomPool.size)
    /// The first byte not yet handed out; `size` when the pool must be filled first.
    private var next = RandomPool.size

    init() { storage.initialize(repeating: 0) }

    deinit {
        storage.update(repeating: 0)
        storage.deallocate()
    }

    /// The next `count` unused bytes (`count` at most `size`).
    mutating func take(_ count: Int) -> [UInt8] {
        precondition(count <= RandomPool.size, "a request larger than the pool")
        if RandomPool.size - next < count {
            SecureRandom.fill(storage)
            next = 0
        }
        let taken = UnsafeMutableBufferPointer(rebasing: storage[next..<next + count])
        let bytes = Array(taken)
        taken.update(repeating: 0)
        next += count
        return bytes
    }
}
