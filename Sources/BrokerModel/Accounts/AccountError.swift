package import Foundation

/// Why the account layer refused a sign-in or change, compared by code.
public struct AccountError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// The account is disabled.
        case userDisabled
        /// Another account holds the identity's email (409, with `existingProviders`).
        case accountExistsWithDifferentCredential
        /// The identity is linked to another account.
        case identityAlreadyLinked
        /// No such account (or identity).
        case notFound
        /// Sign-up with an email an account holds already.
        case emailExists
        /// The email is not a valid address.
        case invalidEmail
        /// The password is too short.
        case weakPassword
        /// Wrong email or password (one answer for both).
        case invalidLoginCredentials
        /// Too many failed password sign-ins; `retryAfter` says when to try again.
        case tooManyAttempts
        /// Unlinking would leave the account with no way to sign in.
        case lastIdentity
        /// A photo URL that is not an `https` URL (see ``PhotoURL``).
        case invalidPhotoURL
    }

    /// The reason.
    public var code: Code
    /// For a conflict: the sign-in methods of the account holding the email.
    public var existingProviders: [String]
    /// For a conflict: the kind of credential that linked each identity of the account holding the email, by
    /// provider, where stored (a surface may name identities by it).
    public var existingKinds: [ProviderID: CredentialKind] = [:]
    /// For `tooManyAttempts`: seconds until an attempt is allowed again.
    public var retryAfter: Int?
    /// For `invalidLoginCredentials`: which part was wrong, for a surface that may say so (one configured without
    /// email enumeration protection); the native API never does.
    public var credentialProblem: CredentialProblem?

    /// Which part of a password sign-in was wrong.
    public enum CredentialProblem: String, Sendable {
        /// No account holds the email, or it has no usable password.
        case noSuchAccount
        /// The account has a password, and this is not it.
        case wrongPassword
    }

    /// Creates an error.
    public init(
        _ code: Code, existingProviders: [String] = [], retryAfter: Int? = nil,
        credentialProblem: CredentialProblem? = nil
    ) {
        self.code = code
        self.existingProviders = existingProviders
        self.retryAfter = retryAfter
        self.credentialProblem = credentialProblem
    }

    /// The code says it all (``CodedError``).
    public var detail: String { "" }

    /// `tooManyAttempts` until `allowedAt`, a limit over `window` counted from `now`: whole seconds, at least 1
    /// and at most `window` (stored times are whole milliseconds, rounded, so the oldest counted one may sit a
    /// fraction of a millisecond after `now`).
    package static func tooManyAttempts(until allowedAt: Date, from now: Date, window: TimeInterval) -> AccountError {
        let seconds = Int(allowedAt.timeIntervalSince(now).rounded(.up))
        return AccountError(.tooManyAttempts, retryAfter: min(Int(window.rounded(.up)), max(1, seconds)))
    }
}

extension AccountError {
    /// The account refusal, with the reasons it carries (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .userDisabled: .userDisabled
        case .accountExistsWithDifferentCredential: .accountExists(existingProviders: existingProviders)
        case .identityAlreadyLinked: .identityAlreadyLinked
        case .notFound: .accountNotFound
        case .emailExists: .emailExists
        case .invalidEmail: .invalidEmail
        case .weakPassword: .weakPassword
        case .invalidLoginCredentials: .invalidLoginCredentials(credentialProblem)
        case .tooManyAttempts: .tooManyAttempts(retryAfter: retryAfter)
        case .lastIdentity: .lastIdentity
        case .invalidPhotoURL: .invalidPhotoURL
        }
    }
}
