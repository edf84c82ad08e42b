import Foundation

/// ``ProviderConfigStore`` over SQL (table `oidc_providers`, schema version 18).
extension SQLBrokerStore {
    private static let providerColumns =
        "id, client_id, issuer, display_name, enabled, sealed_client_secret, response_id_token, response_code, "
        + "created_at, updated_at"

    /// Stores a new provider; `alreadyExists` when its id is taken.
    public func createProviderConfig(_ provider: StoredOIDCProvider) async throws {
        try await write { connection in
            _ = try connection.execute(
                "INSERT INTO oidc_providers (\(Self.providerColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                Self.providerValues(provider, createdAt: provider.createdAt))
        }
    }

    /// The provider with this id, if stored.
    public func providerConfig(id: String) async throws -> StoredOIDCProvider? {
        try await read { connection in
            try connection.query(
                "SELECT \(Self.providerColumns) FROM oidc_providers WHERE id = ?", [.text(id)]
            ).first.map(Self.provider)
        }
    }

    /// Every stored provider, by id.
    public func providerConfigs() async throws -> [StoredOIDCProvider] {
        try await read { connection in
            try connection.query("SELECT \(Self.providerColumns) FROM oidc_providers", []).map(Self.provider)
                .sorted { Array($0.id.utf8).lexicographicallyPrecedes(Array($1.id.utf8)) }
        }
    }

    /// Replaces the stored provider of the same id, keeping its `createdAt`; `notFound` when there is none.
    public func updateProviderConfig(_ provider: StoredOIDCProvider) async throws {
        try await write { connection in
            let values = Self.providerValues(provider, createdAt: provider.createdAt)
            let changed = try connection.execute(
                """
                UPDATE oidc_providers SET client_id = ?, issuer = ?, display_name = ?, enabled = ?, \
                sealed_client_secret = ?, response_id_token = ?, response_code = ?, updated_at = ? WHERE id = ?
                """, Array(values[1...7]) + [values[9], values[0]])
            guard changed > 0 else { throw AccountStoreError(.notFound, "no such provider") }
        }
    }

    /// Deletes the provider with this id; true when one was stored.
    @discardableResult
    public func deleteProviderConfig(id: String) async throws -> Bool {
        try await write { connection in
            try connection.execute("DELETE FROM oidc_providers WHERE id = ?", [.text(id)]) > 0
        }
    }

    private static func providerValues(_ provider: StoredOIDCProvider, createdAt: Date) -> [SQLValue] {
        func flag(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
        return [
            .text(provider.id), .text(provider.clientID), .text(provider.issuer),
            provider.displayName.map(SQLValue.text) ?? .null, flag(provider.enabled),
            provider.sealedClientSecret.map(SQLValue.text) ?? .null, flag(provider.idTokenResponse),
            flag(provider.codeResponse), millis(createdAt), millis(provider.updatedAt),
        ]
    }

    private static func provider(_ row: SQLRow) throws -> StoredOIDCProvider {
        StoredOIDCProvider(
            id: try required(row, "id"), clientID: try required(row, "client_id"), issuer: try required(row, "issuer"),
            displayName: row.text("display_name"), enabled: row.integer("enabled") == 1,
            sealedClientSecret: row.text("sealed_client_secret"),
            idTokenResponse: row.integer("response_id_token") == 1,
            codeResponse: row.integer("response_code") == 1, createdAt: date(try requiredInteger(row, "created_at")),
            updatedAt: date(try requiredInteger(row, "updated_at")))
    }
}
