public import BrokerModel

/// Why a custom token did not verify (the surface that takes custom tokens checks them), compared by code.
public struct CustomTokenError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// Malformed, unsigned where not allowed, expired, badly signed, or with claims it may not carry.
        case invalid
        /// Minted for another project.
        case audienceMismatch
    }

    /// The reason.
    public var code: Code
    /// What was wrong, for the caller (never the token).
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// The refusal (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .invalid: .invalidCustomToken(detail: detail)
        case .audienceMismatch: .customTokenAudienceMismatch
        }
    }
}
