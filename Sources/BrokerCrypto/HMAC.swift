import COpenSSL

/// Keyed message authentication codes.
public enum HMAC {
    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 bytes. Compare tags with
    /// `constantTimeEquals(_:_:)`, never with `==`.
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // OpenSSL treats a NULL key specially; an empty key is passed as a valid pointer of length zero.
        let keyStorage = key.isEmpty ? [0] : key
        let result = keyStorage.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    COpenSSL.HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(key.count),
                        input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        precondition(result != nil && length == 32, "OpenSSL's HMAC-SHA256 failed")
        return output
    }
}
