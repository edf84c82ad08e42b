public import Foundation

/// What became of one account handed to ``AccountImporting/importAccounts(_:)``.
public enum AccountImportOutcome: Sendable, Equatable {
    /// Created, with its identities.
    case imported
    /// An account with this uid is present already: left as it is.
    case unchanged
    /// Not written: the email belongs to another uid (compared case-insensitively).
    case emailTaken
    /// Not written: the phone number belongs to another uid.
    case phoneNumberTaken
    /// Not written: this provider's identity is linked to another uid.
    case identityTaken(ProviderID)
}
