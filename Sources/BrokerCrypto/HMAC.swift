import COpenSSL

/// Keyed message authentication codes.
public enum HMAC {
    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 bytes. Compare tags with
    /// `constantTimeEquals(_:_:)`, never with `==`.
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        mac(.sha256, key: key, message: message)
    }
}
