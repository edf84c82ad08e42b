/// Why a session cookie (a long-lived ID token a server keeps in a cookie) was not minted or not accepted, compared
/// by code.
public struct SessionCookieError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// `validDuration` is outside 300 seconds to 14 days.
        case invalidDuration
        /// The cookie is malformed, not signed by the broker's keys, for another project, or expired.
        case invalidCookie
    }

    /// The reason.
    public var code: Code
    /// Detail for logs; never a token.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}

extension SessionCookieError {
    /// The cookie refusal (``CodedError``).
    public var refusal: Refusal? {
        .sessionCookie(code)
    }
}
