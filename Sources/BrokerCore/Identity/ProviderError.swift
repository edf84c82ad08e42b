/// Why a provider refused or could not check a credential, compared by code.
public struct ProviderError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// The sign-in body lacks a field or has one of the wrong type.
        case invalidRequest
        /// The provider says the credential is not valid.
        case invalidToken
        /// The credential was issued to another app (Kakao's `app_id`).
        case appMismatch
        /// The provider rejects our app's own configuration (Kakao's -3/-5).
        case misconfigured
        /// The provider could not be reached, timed out or failed.
        case unavailable
        /// The account mapping needs an email the provider account lacks.
        case emailRequired
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
