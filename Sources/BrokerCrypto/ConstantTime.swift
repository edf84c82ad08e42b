import COpenSSL

/// Whether `a` and `b` hold the same bytes, in time that depends only on their length (OpenSSL's
/// `CRYPTO_memcmp`). Arrays of different lengths are unequal; the length itself is not secret.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { left in
        b.withUnsafeBytes { right in
            CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
        }
    }
}
