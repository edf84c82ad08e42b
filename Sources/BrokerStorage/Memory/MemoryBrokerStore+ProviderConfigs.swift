import BrokerModel
import Foundation

/// ``ProviderConfigStore`` in memory, with the SQL store's semantics (times kept to the millisecond).
extension MemoryBrokerStore {
    /// Stores a new provider; `alreadyExists` when its id is taken.
    public func createProviderConfig(_ provider: StoredOIDCProvider) throws {
        guard oidcProviders[provider.id] == nil else { throw AccountStoreError(.alreadyExists, "provider id") }
        oidcProviders[provider.id] = Self.truncated(provider)
    }

    /// The provider with this id, if stored.
    public func providerConfig(id: String) -> StoredOIDCProvider? { oidcProviders[id] }

    /// Every stored provider, by id.
    public func providerConfigs() -> [StoredOIDCProvider] {
        oidcProviders.values.sorted { Array($0.id.utf8).lexicographicallyPrecedes(Array($1.id.utf8)) }
    }

    /// Replaces the stored provider of the same id, keeping its `createdAt`; `notFound` when there is none.
    public func updateProviderConfig(_ provider: StoredOIDCProvider) throws {
        guard let stored = oidcProviders[provider.id] else { throw AccountStoreError(.notFound, "no such provider") }
        var replacement = Self.truncated(provider)
        replacement.createdAt = stored.createdAt
        oidcProviders[provider.id] = replacement
    }

    /// Deletes the provider with this id; true when one was stored.
    @discardableResult
    public func deleteProviderConfig(id: String) -> Bool { oidcProviders.removeValue(forKey: id) != nil }

    private static func truncated(_ provider: StoredOIDCProvider) -> StoredOIDCProvider {
        var provider = provider
        provider.createdAt = Date(timeIntervalSince1970: Double(provider.createdAt.epochMilliseconds) / 1000)
        provider.updatedAt = Date(timeIntervalSince1970: Double(provider.updatedAt.epochMilliseconds) / 1000)
        return provider
    }
}
