import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// `count` random bytes. OpenSSL's generator does not fail once seeded; if it ever does, the process
    /// stops rather than hand out predictable bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let status = buffer.withUnsafeMutableBytes { raw in
            RAND_bytes(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(count))
        }
        precondition(status == 1, "OpenSSL's random generator failed")
        return buffer
    }
}
