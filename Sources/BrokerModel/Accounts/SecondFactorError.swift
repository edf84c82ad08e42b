/// Why a second-factor request was refused (contract section 14).
public struct SecondFactorError: CodedError, Equatable {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// A wrong, used or malformed TOTP or recovery code (`INVALID_MFA_CODE`).
        case invalidCode
        /// A pending credential unknown, expired, used, or killed by five wrong codes
        /// (`INVALID_MFA_PENDING_CREDENTIAL`).
        case invalidPendingCredential
        /// No such factor or pending enrolment of the account (`NOT_FOUND`).
        case factorNotFound
        /// Second factors are not enabled (`NOT_FOUND`).
        case notEnabled
    }

    /// The reason.
    public var code: Code
    /// Detail for logs.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// Its refusal (``CodedError``).
    public var refusal: Refusal? { .secondFactor(code) }

    /// Compared by code.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
}
