public import BrokerModel
public import Foundation

/// ``SigningKeyStore``: the broker's own signing keys, in the `signing_keys` table.
extension SQLBrokerStore {
    /// Every stored key, oldest first (ties broken by kid).
    public func signingKeys() async throws -> [StoredSigningKey] {
        try await read { connection in
            try connection.query(
                "SELECT kid, algorithm, private_key_pem, created_at, retired_at FROM signing_keys ORDER BY created_at, kid",
                []
            ).map(Self.decodeSigningKey)
        }
    }

    /// Retires every active key and stores `key`, in one transaction.
    public func rotateSigningKey(to key: StoredSigningKey, at date: Date) async throws {
        try await write { connection in
            try connection.execute("UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL", [Self.millis(date)])
            try Self.insert(key, active: true, in: connection)
        }
    }

    /// Stores a new key; a kid stored before throws `alreadyExists`.
    public func insertSigningKey(_ key: StoredSigningKey) async throws {
        try await write { connection in
            try Self.insert(key, active: false, in: connection)
        }
    }

    /// Stores `key` unless an active key exists (PostgreSQL's serializable transactions make two instances'
    /// concurrent checks conflict, and the retry finds the winner's key); true when stored.
    public func insertFirstSigningKey(_ key: StoredSigningKey) async throws -> Bool {
        try await write { connection in
            let active = try connection.query("SELECT 1 AS active FROM signing_keys WHERE retired_at IS NULL", [])
            guard active.isEmpty else { return false }
            try Self.insert(key, active: true, in: connection)
            return true
        }
    }

    /// Marks the key retired at `date`; a key retired before keeps its first date. `notFound` if absent.
    public func retireSigningKey(id: KeyID, at date: Date) async throws {
        try await write { connection in
            let changed = try connection.execute(
                "UPDATE signing_keys SET retired_at = ? WHERE kid = ? AND retired_at IS NULL",
                [Self.millis(date), .text(id.rawValue)])
            guard changed == 0 else { return }
            let exists = try connection.query("SELECT 1 AS present FROM signing_keys WHERE kid = ?", [.text(id.rawValue)])
            guard !exists.isEmpty else { throw AccountStoreError(.notFound, "no signing key \(id)") }
        }
    }

    /// Inserts `key`, as active (whatever its `retiredAt` says) or with its own `retiredAt`.
    private static func insert(_ key: StoredSigningKey, active: Bool, in connection: any SQLConnection) throws {
        try connection.execute(
            "INSERT INTO signing_keys (kid, algorithm, private_key_pem, created_at, retired_at) VALUES (?, ?, ?, ?, ?)",
            [.text(key.id.rawValue), .text(key.algorithm), .text(key.privateKeyPEM), millis(key.createdAt),
             active ? .null : key.retiredAt.map(millis) ?? .null])
    }

    static func decodeSigningKey(_ row: SQLRow) throws -> StoredSigningKey {
        StoredSigningKey(
            id: KeyID(rawValue: try required(row, "kid")),
            algorithm: try required(row, "algorithm"),
            privateKeyPEM: try required(row, "private_key_pem"),
            createdAt: date(try requiredInteger(row, "created_at")),
            retiredAt: row.integer("retired_at").map(date))
    }
}
