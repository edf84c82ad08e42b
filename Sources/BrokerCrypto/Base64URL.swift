/// Base64url (RFC 4648 section 5), the encoding of every part of a JWT and of a JWK's numbers.
public enum Base64URL {
    /// `bytes` in base64url, without `=` padding (RFC 7515's `BASE64URL`).
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64Codec.url.encode(bytes, padded: false)
    }

    /// The bytes `text` encodes, or nil on bad input.
    ///
    /// Accepts unpadded or correctly `=`-padded text. Refuses any character outside the url-safe
    /// alphabet (including `+`, `/` and whitespace), a length no encoding can have, misplaced or partial
    /// padding, and non-zero unused trailing bits (so a token has exactly one accepted spelling).
    public static func decode(_ text: String) -> [UInt8]? {
        Base64Codec.url.decode(text, skippingWhitespace: false)
    }
}
