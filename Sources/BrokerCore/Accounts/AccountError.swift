/// Why the account layer refused a sign-in or change, compared by code.
public struct AccountError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// The account is disabled.
        case userDisabled
        /// Another account holds the identity's email (409, with `existingProviders`).
        case accountExistsWithDifferentCredential
        /// The identity is linked to another account.
        case identityAlreadyLinked
        /// The account mapping needs an email the provider account lacks.
        case emailRequired
        /// No such account.
        case notFound
    }

    /// The reason.
    public var code: Code
    /// For a conflict: the sign-in methods of the account holding the email.
    public var existingProviders: [String]

    /// Creates an error.
    public init(_ code: Code, existingProviders: [String] = []) {
        self.code = code
        self.existingProviders = existingProviders
    }

    /// The code's name.
    public var description: String { code.rawValue }
}
