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

/// Writing imported accounts in batches (contract section 8): many accounts per transaction, so an import of
/// 100,000 users costs a few hundred commits, not 100,000, and a server on the same database keeps serving
/// between them.
public protocol AccountImporting: Sendable {
    /// In one transaction, for each account in order: left alone when its uid is present (`unchanged`), not
    /// written when its email, phone number or an identity belongs to another uid (`emailTaken`, `phoneNumberTaken`, `identityTaken`), created
    /// otherwise, with its second factors and recovery codes in `secondFactors` (by uid; an account left alone
    /// or not written gets none). One outcome per account, in order. The accounts must not conflict with one
    /// another (the import's check rules that out); if the store refuses the batch anyway (`alreadyExists`, a
    /// writer elsewhere won a race), nothing of it is written.
    func importAccounts(
        _ accounts: [Account], secondFactors: [AccountID: AccountSecondFactors]
    ) async throws -> [AccountImportOutcome]
}

extension AccountImporting {
    /// ``importAccounts(_:secondFactors:)`` with no second factors.
    public func importAccounts(_ accounts: [Account]) async throws -> [AccountImportOutcome] {
        try await importAccounts(accounts, secondFactors: [:])
    }
}
