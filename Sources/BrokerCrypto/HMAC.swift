import COpenSSL

/// Keyed message authentication codes.
public enum HMAC {
    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 bytes. Compare tags with
    /// `constantTimeEquals(_:_:)`, never with `==`.
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        mac(.sha256, key: key, message: message)
    }

    /// HMAC-SHA1 (RFC 2104) of `message` under `key`: 20 bytes, for HOTP and TOTP (RFC 4226, RFC 6238) only.
    public static func sha1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        mac(.sha1, key: key, message: message)
    }
}
