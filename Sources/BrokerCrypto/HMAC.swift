import COpenSSL

/// Keyed message authentication codes.
public enum HMAC {
    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 bytes. Compare tags with
    /// `constantTimeEquals(_:_:)`, never with `==`.
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        compute(EVP_sha256(), length: 32, key: key, message: message)
    }

    /// HMAC-SHA1 (RFC 2104) of `message` under `key`: 20 bytes, for HOTP and TOTP (RFC 4226, RFC 6238) only.
    public static func sha1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        compute(EVP_sha1(), length: 20, key: key, message: message)
    }

    /// The HMAC of `message` under `key` with `digest`, whose output has `length` bytes.
    private static func compute(
        _ digest: OpaquePointer?, length expected: Int, key: [UInt8], message: [UInt8]
    ) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: expected)
        var length: UInt32 = 0
        // OpenSSL treats a NULL key specially; an empty key is passed as a valid pointer of length zero.
        let keyStorage = key.isEmpty ? [0] : key
        let result = keyStorage.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    COpenSSL.HMAC(
                        digest, keyBytes.baseAddress, Int32(key.count),
                        input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        precondition(result != nil && Int(length) == expected, "OpenSSL's HMAC failed")
        return output
    }
}
