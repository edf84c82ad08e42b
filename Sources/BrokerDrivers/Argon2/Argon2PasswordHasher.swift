public import BrokerCore
import BrokerCrypto
import CArgon2

/// Argon2id password hashes through libargon2, in the PHC string format (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`).
///
/// Defaults are OWASP's minimum: 19 MiB of memory, 2 passes, 1 lane. Hashing runs on a pool of `workers`
/// threads, so at most `workers × memory` is in use however many sign-ups arrive at once.
public final class Argon2PasswordHasher: PasswordHashing {
    /// Memory cost in KiB.
    public let memoryKiB: UInt32
    /// Passes over memory.
    public let iterations: UInt32
    /// Lanes.
    public let parallelism: UInt32
    /// The threads every Argon2id hash runs on (``MigratingPasswordHasher`` runs imported verifications on
    /// threads of their own).
    let pool: BoundedWorkerPool

    private static let saltLength = 16
    private static let hashLength = 32

    /// Creates a hasher; parameters below OWASP's minimum are raised to it. At most `maximumQueued` hashes
    /// wait for a worker; beyond that, work is refused with ``PasswordHashingError/overloaded``.
    public init(
        memoryKiB: UInt32 = 19 * 1024, iterations: UInt32 = 2, parallelism: UInt32 = 1, workers: Int = 2,
        maximumQueued: Int = 256
    ) {
        self.memoryKiB = max(memoryKiB, 19 * 1024)
        self.iterations = max(iterations, 2)
        self.parallelism = max(parallelism, 1)
        pool = BoundedWorkerPool(workers: workers, name: "argon2", maximumQueued: maximumQueued)
    }

    deinit { pool.stop() }

    /// An encoded Argon2id hash of `password` with a fresh random salt.
    public func hash(_ password: String) async throws -> String {
        let salt = SecureRandom.bytes(Self.saltLength)
        let (memory, passes, lanes) = (memoryKiB, iterations, parallelism)
        let result: Result<String, Argon2Error> = try await runOnPool {
            let length = argon2_encodedlen(passes, memory, lanes, UInt32(Self.saltLength), UInt32(Self.hashLength), Argon2_id)
            var encoded = [CChar](repeating: 0, count: length)
            let password = Array(password.utf8)
            let status = password.withUnsafeBytes { passwordBytes in
                salt.withUnsafeBytes { saltBytes in
                    argon2id_hash_encoded(
                        passes, memory, lanes, passwordBytes.baseAddress, passwordBytes.count, saltBytes.baseAddress,
                        saltBytes.count, Self.hashLength, &encoded, length)
                }
            }
            guard status == ARGON2_OK.rawValue else { return .failure(Argon2Error(status: status)) }
            return .success(String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return try result.get()
    }

    /// Whether `password` matches `encoded`; libargon2 compares in constant time.
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        guard encoded.hasPrefix("$argon2id$") else { return false }
        return try await runOnPool {
            let password = Array(password.utf8)
            return password.withUnsafeBytes { bytes in
                argon2id_verify(encoded, bytes.baseAddress, bytes.count) == ARGON2_OK.rawValue
            }
        }
    }
}

extension Argon2PasswordHasher {
    /// Runs `work` on the pool, translating a full queue into ``PasswordHashingError/overloaded``.
    func runOnPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        do {
            return try await pool.run(work)
        } catch is BoundedWorkerPool.Full {
            throw PasswordHashingError.overloaded
        }
    }
}

/// A libargon2 failure, by its status code (the message never contains the password).
public struct Argon2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// libargon2's status.
    public var status: Int32
    /// libargon2's message for the status.
    public var description: String { String(cString: argon2_error_message(status)) }
}
