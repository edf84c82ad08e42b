import Foundation

/// The OpenID Connect providers managed at run time (the compatibility listener's v2 `oauthIdpConfigs`, contract
/// section 11): stored through ``ProviderConfigStore``, each change audited (`provider_config`, the outcome
/// `created`, `updated` or `deleted`, the provider as `oidc.<id>`). The client secret arrives sealed.
extension AdminService {
    /// Stores a new provider; ``AccountStoreError`` `alreadyExists` when the id is taken.
    public func createProviderConfig(_ provider: StoredOIDCProvider, requestID: String) async throws {
        try await store.createProviderConfig(provider)
        await recordProviderConfig(provider.id, "created", requestID: requestID)
    }

    /// The stored provider with this id, if any.
    public func providerConfig(id: String) async throws -> StoredOIDCProvider? {
        try await store.providerConfig(id: id)
    }

    /// Every stored provider, by id.
    public func providerConfigs() async throws -> [StoredOIDCProvider] {
        try await store.providerConfigs()
    }

    /// Replaces a stored provider; ``AccountStoreError`` `notFound` when there is none.
    public func updateProviderConfig(_ provider: StoredOIDCProvider, requestID: String) async throws {
        try await store.updateProviderConfig(provider)
        await recordProviderConfig(provider.id, "updated", requestID: requestID)
    }

    /// Deletes a stored provider; false when there was none.
    public func deleteProviderConfig(id: String, requestID: String) async throws -> Bool {
        guard try await store.deleteProviderConfig(id: id) else { return false }
        await recordProviderConfig(id, "deleted", requestID: requestID)
        return true
    }

    private func recordProviderConfig(_ id: String, _ outcome: String, requestID: String) async {
        do {
            try await store.appendAuditEvent(
                AuditEvent(
                    time: clock.now, uid: nil, action: .providerConfig, provider: "oidc." + id, actor: .admin,
                    outcome: outcome, requestID: requestID))
        } catch {
            logger.error(
                "audit event not recorded",
                metadata: ["action": AuditAction.providerConfig.rawValue, "requestId": requestID, "cause": "\(error)"])
        }
    }
}
