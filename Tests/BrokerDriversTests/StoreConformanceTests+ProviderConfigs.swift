import BrokerCore
import BrokerDrivers
import BrokerStorage
import Foundation
import Testing

/// ``ProviderConfigStore`` cases of the one conformance suite: the OpenID Connect providers managed at run time
/// (schema version 18), on every backend.
extension StoreConformanceTests {
    static func oidcProvider(_ id: String, at offset: Int64 = 0) -> StoredOIDCProvider {
        StoredOIDCProvider(
            id: id, clientID: "client-\(id)", issuer: "https://\(id).example.com", displayName: "Provider \(id)",
            sealedClientSecret: "sealed-\(id)", createdAt: date(ms: t0 + offset), updatedAt: date(ms: t0 + offset))
    }

    @Test(arguments: StoreBackend.enabled)
    func providerConfigsAreCreatedListedUpdatedAndDeleted(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            #expect(try await store.providerConfigs().isEmpty)
            let beta = Self.oidcProvider("beta")
            var alpha = Self.oidcProvider("alpha", at: 5)
            alpha.displayName = nil
            alpha.sealedClientSecret = nil
            alpha.enabled = false
            alpha.codeResponse = true
            try await store.createProviderConfig(beta)
            try await store.createProviderConfig(alpha)
            #expect(try await store.providerConfig(id: "beta") == beta)
            #expect(try await store.providerConfig(id: "alpha") == alpha)
            #expect(try await store.providerConfig(id: "gamma") == nil)
            #expect(try await store.providerConfigs() == [alpha, beta])

            // A taken id stores nothing.
            var clash = Self.oidcProvider("beta", at: 9)
            clash.clientID = "other"
            await expectStoreError(.alreadyExists) { try await store.createProviderConfig(clash) }
            #expect(try await store.providerConfig(id: "beta") == beta)

            // An update replaces every field but the creation time.
            var changed = beta
            changed.clientID = "client-2"
            changed.issuer = "https://issuer-2.example.com"
            changed.displayName = nil
            changed.enabled = false
            changed.sealedClientSecret = nil
            changed.idTokenResponse = false
            changed.codeResponse = true
            changed.createdAt = date(ms: Self.t0 + 70)
            changed.updatedAt = date(ms: Self.t0 + 77)
            try await store.updateProviderConfig(changed)
            var expected = changed
            expected.createdAt = beta.createdAt
            #expect(try await store.providerConfig(id: "beta") == expected)
            await expectStoreError(.notFound) { try await store.updateProviderConfig(Self.oidcProvider("gamma")) }
            #expect(try await store.providerConfig(id: "gamma") == nil)

            #expect(try await store.deleteProviderConfig(id: "beta"))
            #expect(try await store.deleteProviderConfig(id: "beta") == false)
            #expect(try await store.providerConfigs() == [alpha])
        }
    }
}
