public import BrokerModel
package import BrokerStorage

/// The bulk copy of accounts out of the broker and into it (`broker admin export` and `broker admin import`): pages of
/// accounts in creation order with their second factors, and batches written in one transaction each, told apart from
/// a batch another writer raced. The store behind it stays out of its callers' sight.
public struct AccountTransfer: Sendable {
    let store: any AccountStore & AccountImporting & AccountQuerying
    let directory: any AccountDirectory
    let secondFactors: any SecondFactorStore

    /// The transfer in and out of `store`.
    package init(store: any BrokerStore) {
        self.init(importingInto: store, directory: store, secondFactors: store)
    }

    /// The transfer into `store`, reading listings from `directory` and second factors from `secondFactors` (a test
    /// puts a store between the import and the backend).
    package init(
        importingInto store: any AccountStore & AccountImporting & AccountQuerying, directory: any AccountDirectory,
        secondFactors: any SecondFactorStore
    ) {
        self.store = store
        self.directory = directory
        self.secondFactors = secondFactors
    }

    /// Up to `limit` accounts in creation order, after `cursor` (nil: from the first).
    public func accounts(after cursor: PageCursor?, limit: Int) async throws -> [Account] {
        try await directory.listAccounts(filter: AccountFilter(), after: cursor, limit: limit)
    }

    /// The second factors and recovery codes of those of `uids` that have any.
    public func secondFactorSets(of uids: [AccountID]) async throws -> [AccountID: AccountSecondFactors] {
        try await secondFactors.secondFactorSets(of: uids)
    }

    /// Writes `accounts` in one transaction, each with its second factors in `secondFactors` (by uid), unaudited
    /// (the command line's import): one outcome per account, in order. Nil when the store refused the batch because
    /// another writer took an email or identity meanwhile: then nothing of it was written.
    public func importAccounts(
        _ accounts: [Account], secondFactors: [AccountID: AccountSecondFactors]
    ) async throws -> [AccountImportOutcome]? {
        do {
            return try await store.importAccounts(accounts, secondFactors: secondFactors, record: .cli)
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            return nil
        }
    }

    /// The account `id`, if any.
    public func account(id: AccountID) async throws -> Account? { try await store.account(id: id) }

    /// The account holding `email`, if any.
    public func account(email: String) async throws -> Account? { try await store.account(email: email) }

    /// The account holding `phoneNumber` (E.164), if any.
    public func account(phoneNumber: String) async throws -> Account? {
        try await store.account(phoneNumber: phoneNumber)
    }

    /// The account the identity `subject` of `provider` is linked to, if any.
    public func account(provider: ProviderID, subject: String) async throws -> Account? {
        try await store.account(provider: provider, subject: subject)
    }
}
