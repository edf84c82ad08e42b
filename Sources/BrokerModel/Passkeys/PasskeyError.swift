/// A passkey request refused (contract section 15). A ceremony that did not verify carries the WebAuthn check that
/// refused it in `detail`, for logs only: the answer is one code.
public struct PasskeyError: CodedError, Equatable {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// A registration or sign-up that did not verify, or whose challenge was unknown, used or expired
        /// (400 `INVALID_PASSKEY`).
        case invalidRegistration
        /// A sign-in that did not verify: any check, an unknown credential, a counter that did not advance
        /// (401 `INVALID_PASSKEY`).
        case invalidSignIn
        /// The credential id is registered already (409 `PASSKEY_EXISTS`).
        case passkeyExists
        /// No such passkey of the account (404 `NOT_FOUND`).
        case passkeyNotFound
        /// Passkeys are not enabled (404 `PROVIDER_NOT_ENABLED`).
        case notEnabled
    }

    /// The reason.
    public var code: Code
    /// Detail for logs: the WebAuthn check, never the credential's bytes.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A ceremony refused by `error`'s check: a registration's (`invalidRegistration`) or a sign-in's.
    package init(_ error: WebAuthnError, signIn: Bool) {
        self.init(signIn ? .invalidSignIn : .invalidRegistration, error.check.rawValue)
    }

    /// Its refusal (``CodedError``).
    public var refusal: Refusal? { .passkey(code) }

    /// Compared by code.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
}
