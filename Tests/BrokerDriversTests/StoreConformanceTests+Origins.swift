import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Schema version 5: an account's origin and import metadata, on every backend.
extension StoreConformanceTests {
    static func importedAccount(_ uid: String) -> Account {
        Account(
            id: AccountID(uid), email: "\(uid)@example.com", createdAt: date(ms: t0),
            identities: [identity("google", "g-\(uid)")], password: .chosen("$2b$04$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"),
            origin: .import,
            imported: AccountImport(
                importedAt: date(ms: t0 + 5), file: "users.json", index: 41,
                otherIdentities: [identity("facebook.com", "f-\(uid)", at: 1, email: "fb@example.com"), identity("oidc.line", "l-1", at: 2)]))
    }

    @Test(arguments: StoreBackend.enabled)
    func originAndImportMetadataAreStoredWithTheAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let imported = Self.importedAccount("imp")
            try await store.create(imported)
            #expect(try await store.account(id: AccountID("imp")) == imported)
            #expect(try await store.account(email: "IMP@example.com") == imported)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-imp") == imported)
            // The other providers' identities are metadata, not identities: no sign-in finds them.
            #expect(try await store.account(provider: ProviderID("facebook.com"), subject: "f-imp") == nil)

            // A rehash changes the hash only: the origin and the import survive it.
            let rehashed = try await store.update(id: AccountID("imp")) {
                $0.password?.hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"
            }
            #expect(rehashed.origin == .import)
            #expect(rehashed.imported == imported.imported)
            #expect(try await store.account(id: AccountID("imp")) == rehashed)

            let plain = Self.account("plain", email: "plain@example.com")
            try await store.create(plain)
            let loaded = try #require(try await store.account(id: AccountID("plain")))
            #expect(loaded.origin == nil && loaded.imported == nil)
            let marked = try await store.update(id: AccountID("plain")) { $0.origin = .provider(ProviderID("kakao")) }
            #expect(try await store.account(id: AccountID("plain"))?.origin == AccountOrigin(rawValue: "kakao"))
            #expect(marked.imported == nil)
        }
    }
}
