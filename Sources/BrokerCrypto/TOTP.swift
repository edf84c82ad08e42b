/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP), with HMAC-SHA1 as authenticator apps use.
public enum TOTP {
    /// The HOTP value of `secret` at `counter`: the dynamically truncated HMAC-SHA1, as `digits` decimal digits
    /// (6 to 8), zero-padded.
    public static func code(secret: [UInt8], counter: UInt64, digits: Int) -> String {
        precondition((6...8).contains(digits), "a one-time password has 6 to 8 digits")
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * $0)) }
        let mac = HMAC.sha1(key: secret, message: message)
        let offset = Int(mac[19] & 0x0F)
        let binary =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The time step of `unixTime` (seconds since 1970) for steps of `period` seconds (RFC 6238's `T`).
    public static func step(unixTime: Double, period: Int) -> UInt64 {
        UInt64(max(0, unixTime) / Double(period))
    }

    /// The step among `step - window ... step + window` whose code is `code` (compared in constant time), or nil.
    public static func matchingStep(
        _ code: String, secret: [UInt8], around step: UInt64, window: UInt64 = 1, digits: Int
    ) -> UInt64? {
        let given = Array(code.utf8)
        guard given.count == digits else { return nil }
        var found: UInt64?
        for candidate in (step >= window ? step - window : 0)...(step + window) {
            let expected = Array(Self.code(secret: secret, counter: candidate, digits: digits).utf8)
            if constantTimeEquals(expected, given), found == nil { found = candidate }
        }
        return found
    }
}
