public import BrokerModel
import Foundation

/// ``AccountImporting`` (part of ``BrokerStore``) for the SQL store: one write transaction per batch.
extension SQLBrokerStore {
    static let selectUIDExists = "SELECT uid FROM accounts WHERE uid = ?"
    static let selectUIDByEmailKey = "SELECT uid FROM accounts WHERE email_key = ?"
    static let selectUIDByPhoneNumber = "SELECT uid FROM accounts WHERE phone_number = ?"
    static let selectUIDByIdentity = "SELECT uid FROM identities WHERE provider = ? AND subject = ?"

    /// Checks and creates each account in one write transaction (see ``AccountImporting``).
    public func importAccounts(
        _ accounts: [Account], secondFactors: [AccountID: AccountSecondFactors], record: ImportRecord
    ) async throws -> [AccountImportOutcome] {
        for account in accounts { try Self.requireDistinctIdentities(account.identities) }
        let now = clock.now
        let routing = announcer
        return try await write { connection in
            try accounts.map { account in
                if try !connection.query(Self.selectUIDExists, [.text(account.id.rawValue)]).isEmpty {
                    return .unchanged
                }
                if let email = account.email,
                    try !connection.query(Self.selectUIDByEmailKey, [.text(Self.emailKey(email))]).isEmpty
                {
                    return .emailTaken
                }
                if let phone = account.phoneNumber,
                    try !connection.query(Self.selectUIDByPhoneNumber, [.text(phone)]).isEmpty
                {
                    return .phoneNumberTaken
                }
                for identity in account.identities
                where try !connection.query(
                    Self.selectUIDByIdentity, [.text(identity.provider.rawValue), .text(identity.subject)]
                ).isEmpty {
                    return .identityTaken(identity.provider)
                }
                try connection.execute(Self.insertAccount, Self.accountValues(account))
                for identity in account.identities {
                    try connection.execute(Self.insertIdentity, Self.identityValues(identity, uid: account.id))
                }
                if let set = secondFactors[account.id] {
                    try Self.insertSecondFactors(set, uid: account.id, at: now, in: connection)
                }
                try Self.applyWriteOptions(
                    record.options(for: account, at: now, routing: routing), uid: account.id, now: now, in: connection)
                return .imported
            }
        }
    }
}
