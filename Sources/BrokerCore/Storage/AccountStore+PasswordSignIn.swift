public import Foundation

extension AccountStore {
    /// Records a password sign-in to account `id` in one transaction: the account's `lastSignInAt`, the
    /// options' session and audit events, and, when `rehash` is given, the replacement of the verified hash
    /// by it (an imported hash upgraded to Argon2id, contract section 8). All of it commits, or none.
    ///
    /// `verifiedHash` is the hash the password was checked against: if the account's hash is no longer it
    /// (a takeover or a reset changed it meanwhile), or is no longer usable, nothing is written and
    /// ``AccountError/Code/invalidLoginCredentials`` is thrown; a disabled account throws
    /// ``AccountError/Code/userDisabled``, and a deleted one ``AccountStoreError/Code/notFound``.
    public func recordPasswordSignIn(
        id: AccountID, verifiedHash: String, rehash: String?, at time: Date, options: AccountWriteOptions
    ) async throws -> Account {
        try await update(id: id, options: options) { account in
            guard account.passwordHash == verifiedHash, account.hasUsablePassword else {
                throw AccountError(.invalidLoginCredentials)
            }
            guard !account.disabled else { throw AccountError(.userDisabled) }
            account.lastSignInAt = time
            if let rehash { account.password?.hash = rehash }
        }
    }
}
