public import BrokerModel
import Foundation

/// ``AccountQuerying`` over SQL (schema version 12's `phone_number`).
extension SQLBrokerStore {
    /// The account holding `phoneNumber`.
    public func account(phoneNumber: String) async throws -> Account? {
        try await read { connection in
            try Self.loadAccount(in: connection, sql: Self.selectAccountByPhoneNumber, [.text(phoneNumber)])
        }
    }

    /// Up to `limit` accounts after `uid`, in uid order. The uid is compared as bytes in both databases
    /// (SQLite's default BINARY collation; PostgreSQL's `COLLATE "C"`), so pages agree with the memory store.
    public func listAccounts(afterUID uid: AccountID?, limit: Int) async throws -> [Account] {
        let collate = database.dialect == .postgres ? " COLLATE \"C\"" : ""
        var sql = "SELECT \(Self.accountColumns) FROM accounts a"
        var binds: [SQLValue] = []
        if let uid {
            sql += " WHERE a.uid\(collate) > ?"
            binds.append(.text(uid.rawValue))
        }
        sql += " ORDER BY a.uid\(collate) LIMIT ?"
        binds.append(.integer(Int64(max(0, limit))))
        let query = sql
        let values = binds
        return try await read { connection in
            try connection.query(query, values).map { row in
                var account = try Self.decodeAccount(row)
                account.identities = try connection.query(Self.selectIdentities, [.text(account.id.rawValue)])
                    .map(Self.decodeIdentity)
                return account
            }
        }
    }
}
