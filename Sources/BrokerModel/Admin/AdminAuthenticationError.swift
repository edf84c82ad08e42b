/// Why an administrator's request was not authenticated (``AdminGate``), compared by code.
public struct AdminAuthenticationError: CodedError, Equatable {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// No admin token is configured: the admin API is closed.
        case disabled
        /// A token in the query string (they end up in logs and proxies).
        case tokenInQuery
        /// No token, or not the admin token.
        case invalidToken
        /// Too many failures from the caller's address within the window.
        case lockedOut
    }

    /// The reason.
    public var code: Code
    /// Seconds until the caller's address may try again (``Code/lockedOut``).
    public var retryAfter: Int?
    /// Detail for logs: the code (never a token).
    public var detail: String { code.rawValue }

    /// Creates an error.
    public init(_ code: Code, retryAfter: Int? = nil) {
        self.code = code
        self.retryAfter = retryAfter
    }

    /// The admin refusal (``CodedError``).
    public var refusal: Refusal? { .adminAuthentication(code, retryAfter: retryAfter) }
}
