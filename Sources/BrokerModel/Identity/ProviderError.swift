/// Why a provider refused or could not check a credential, compared by code.
public struct ProviderError: CodedError {
    /// The stable reasons shared by every provider.
    public enum Code: String, Sendable {
        /// The sign-in request lacks a field or has one of the wrong type.
        case invalidRequest
        /// The provider says the credential is not valid.
        case invalidToken
        /// A refusal of the provider's own, with the public code it contributes (``ProviderError/publicCode``).
        case rejected
        /// The provider rejects our app's own configuration.
        case misconfigured
        /// The provider could not be reached, timed out or failed.
        case unavailable
    }

    /// The reason.
    public var code: Code
    /// Detail for logs; never a token.
    public var detail: String
    /// For ``Code/rejected``: the status, code and message the provider contributes (its own wire codes).
    public var publicCode: PublicErrorCode?

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "", publicCode: PublicErrorCode? = nil) {
        self.code = code
        self.detail = detail
        self.publicCode = publicCode
    }
}

/// An error code a provider contributes to the native API: its status, its code and a message.
public struct PublicErrorCode: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The code, e.g. `<PROVIDER>_APP_MISMATCH`.
    public var code: String
    /// A human-readable message (never a token).
    public var message: String

    /// Creates a code.
    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }
}

extension ProviderError {
    /// The provider refusal, with what a surface shows of it (``CodedError``).
    public var refusal: Refusal? {
        .provider(code, detail: detail, publicCode: publicCode)
    }
}
