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
    /// Which refresh-token problem it was (for `invalidRefreshToken`), for a surface that answers them apart.
    public enum RefreshProblem: String, Sendable {
        /// No such token, or one of another listener's sessions.
        case unknown
        /// Its session ended: revoked, expired, reused, or issued before the account's sessions were revoked.
        case ended
        /// Its account is gone.
        case accountGone
    }

    /// The reason.
    public var code: Code
    /// Detail for logs; never a token.
    public var detail: String
    /// For `invalidRefreshToken`: which problem.
    public var refreshProblem: RefreshProblem?

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "", refreshProblem: RefreshProblem? = nil) {
        self.code = code
        self.detail = detail
        self.refreshProblem = refreshProblem
    }
}

extension SessionError {
    /// The session refusal, with the refresh-token problem (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .invalidRefreshToken: .invalidRefreshToken(refreshProblem)
        case .unauthenticated: .unauthenticated
        case .recentSignInRequired: .recentSignInRequired
        }
    }
}
