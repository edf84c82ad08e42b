import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// ``AccountImporting``: a batch of imported accounts in one transaction, on every backend.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aBatchCreatesNewAccountsLeavesPresentOnesAndSkipsTakenOnes(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let present = Self.account("present", email: "present@example.com", name: "Before")
            let owner = Self.account(
                "owner", email: "owner@example.com", identities: [Self.identity("google", "g-owned")])
            try await store.create(present)
            try await store.create(owner)

            var changedPresent = Self.importedAccount("present")
            changedPresent.displayName = "After"
            let batch = [
                Self.importedAccount("new1"),
                changedPresent,
                Self.account("emailclash", email: "OWNER@example.com"),
                Self.account(
                    "identityclash", email: "ic@example.com",
                    identities: [Self.identity("apple", "a-free"), Self.identity("google", "g-owned", at: 1)]),
                Self.importedAccount("new2"),
            ]
            let outcomes = try await store.importAccounts(batch)
            #expect(outcomes == [.imported, .unchanged, .emailTaken, .identityTaken(ProviderID("google")), .imported])

            #expect(try await store.account(id: AccountID("new1")) == Self.importedAccount("new1"))
            #expect(try await store.account(id: AccountID("new2")) == Self.importedAccount("new2"))
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-new2")?.id == AccountID("new2"))
            #expect(try await store.account(id: AccountID("present")) == present)
            #expect(try await store.account(id: AccountID("owner")) == owner)
            for uid in ["emailclash", "identityclash"] { #expect(try await store.account(id: AccountID(uid)) == nil) }
            #expect(try await store.account(provider: ProviderID("apple"), subject: "a-free") == nil)

            // Again: everything is present now or still taken.
            #expect(
                try await store.importAccounts(batch) == [
                    .unchanged, .unchanged, .emailTaken, .identityTaken(ProviderID("google")), .unchanged,
                ])
            #expect(try await store.importAccounts([]) == [])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aBatchWithAnAccountListingAnIdentityTwiceWritesNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let twice = Self.account(
                "twice", identities: [Self.identity("google", "g-1"), Self.identity("google", "g-1", at: 1)])
            let batch = [Self.importedAccount("first"), twice]
            await expectStoreError(.alreadyExists) {
                let outcomes = try await store.importAccounts(batch)
                Issue.record("imported: \(outcomes)")
            }
            let left = try await [store.account(id: AccountID("first")), store.account(id: AccountID("twice"))]
            #expect(left == [nil, nil])
        }
    }
}
