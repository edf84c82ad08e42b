import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// The kind of credential that linked an identity (``Identity/kind``) is stored with it on every backend, read back
/// by every load (by uid, by identity, inside a write), changed by a write that changes it, and nil for an identity
/// stored without one (a legacy identity).
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func anIdentitysCredentialKindIsStoredReadAndChanged(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            var byIDToken = Self.identity("kakao", "k-1")
            byIDToken.kind = .idToken
            var byAccessToken = Self.identity("naver", "n-1", at: 1)
            byAccessToken.kind = .accessToken
            let legacy = Self.identity("line", "l-1", at: 2)
            try await store.create(Self.account("alice", identities: [byIDToken, byAccessToken, legacy]))

            let kinds: [CredentialKind?] = [.idToken, .accessToken, nil]
            #expect(try await store.account(id: AccountID("alice"))?.identities.map(\.kind) == kinds)
            let byIdentity = try await store.account(provider: ProviderID("naver"), subject: "n-1")
            #expect(byIdentity?.identities.map(\.kind) == kinds)
            let signedIn = try await store.update(
                linkedTo: ProviderID("kakao"), subject: "k-1", options: AccountWriteOptions()
            ) { account in
                guard account.identities.map(\.kind) == kinds else { throw BodyFailure() }
            }
            #expect(signedIn?.identities.map(\.kind) == kinds)

            // A write that changes a kind stores it; one that links an identity stores the new one's.
            let added = Identity(
                provider: ProviderID("google"), subject: "g-1", email: nil, linkedAt: date(ms: Self.t0 + 3),
                kind: .idToken)
            let updated = try await store.update(id: AccountID("alice"), options: AccountWriteOptions()) { account in
                account.identities[2].kind = .accessToken
                account.identities.append(added)
            }
            let after: [CredentialKind?] = [.idToken, .accessToken, .accessToken, .idToken]
            #expect(updated.identities.map(\.kind) == after)
            #expect(try await store.account(id: AccountID("alice"))?.identities.map(\.kind) == after)
        }
    }
}
