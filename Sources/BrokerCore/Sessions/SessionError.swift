/// Why a session operation was refused, compared by code.
public struct SessionError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// The refresh token is unknown, expired, revoked or reused.
        case invalidRefreshToken
        /// The broker ID token is missing or not valid.
        case unauthenticated
        /// A sensitive change asked with an ID token whose session signed in too long ago (contract section 4).
        case recentSignInRequired
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
