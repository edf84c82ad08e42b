/// Why an action code (a verification, reset or email sign-in code) was refused, compared by code.
public struct ActionCodeError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// The code is malformed, unknown, used, or of another action.
        case invalidCode
        /// The code is known and unused, but its hour is over.
        case expiredCode
        /// An email sign-in named another address than the one the code was issued for.
        case wrongEmail
        /// A reset was confirmed without a new password.
        case missingNewPassword
        /// No account holds the address a reset or verification link was asked for.
        case accountNotFound
        /// The `continueUrl` is not an absolute URL with a host, or is longer than 2,048 bytes.
        case invalidContinueURL
        /// An email sign-in code linked to an account that holds another address (changing an address is the
        /// email change's, which tells the old address).
        case otherAddress
    }

    /// The reason.
    public var code: Code
    /// Detail for logs; never a code.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}

extension ActionCodeError {
    /// The action code refusal (``CodedError``).
    public var refusal: Refusal? {
        .actionCode(code)
    }
}
