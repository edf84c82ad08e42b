public import BrokerModel
import BrokerStorage

/// Accounts an administrator's call imports, planned by the surface that took them (a batch of another system's
/// user records).
extension AdminService {
    /// Writes `accounts` (planned and checked by the caller, each with its `imported` record) in one transaction,
    /// origin `import`, each audited as `import` with `requestID` and announced as `user.created` in it; when the
    /// store refuses the batch (a writer elsewhere won a race), account by account. One outcome per account, in order.
    public func importAccounts(_ accounts: [Account], requestID: String) async throws -> [AccountImportOutcome] {
        guard !accounts.isEmpty else { return [] }
        let record = ImportRecord(requestID: requestID, audited: true)
        do {
            return try await store.importAccounts(accounts, record: record)
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            var outcomes: [AccountImportOutcome] = []
            for account in accounts {
                do {
                    outcomes += try await store.importAccounts([account], record: record)
                } catch let error as AccountStoreError where error.code == .alreadyExists {
                    outcomes.append(.unchanged)
                }
            }
            return outcomes
        }
    }
}
