/// Standard base64 (RFC 4648 section 4), as in PEM bodies and HTTP Basic credentials.
public enum Base64 {
    /// The bytes `text` encodes, or nil on bad input.
    ///
    /// Uses the standard alphabet (`+`, `/`); ASCII spaces, tabs and line breaks are ignored, so a PEM
    /// body can be passed as is. Padding is optional but must be complete when present; characters
    /// outside the alphabet (including `-` and `_`) and non-zero unused trailing bits are refused.
    public static func decode(_ text: String) -> [UInt8]? {
        Base64Codec.standard.decode(text, skippingWhitespace: true)
    }

    /// `bytes` in standard base64, with `=` padding and no line breaks.
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64Codec.standard.encode(bytes, padded: true)
    }
}
