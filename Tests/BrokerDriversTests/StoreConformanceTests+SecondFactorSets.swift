import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// What the export and import of second factors need of every backend, and the completion's account change (a held
/// link): an export page's factors and recovery codes, an imported account written with its factors in the batch's
/// transaction, and a completion whose change is saved as an update saves it, or nothing when it throws.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func anExportPageReadsEachAccountsFactorsAndAnImportWritesThemWithTheAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await Self.enrolled(store, "with")
            try await store.create(Self.account("without", email: "without@example.com"))
            let sets = try await store.secondFactorSets(of: [
                AccountID("with"), AccountID("without"), AccountID("none"),
            ])
            #expect(Array(sets.keys) == [AccountID("with")])
            let set = try #require(sets[AccountID("with")])
            #expect(set.factors.map(\.id) == ["f1-with"] && set.factors.first?.lastUsedStep == 10)
            #expect(set.factors.first?.sealedSecret == "sealed-f1-with" && set.factors.first?.displayName == "Phone")
            #expect(set.recoveryCodeHashes == ["r1", "r2"])

            // Imported with its factors (moved to the new uid), in the batch; an unchanged account gets none.
            var moved = set
            moved.factors = moved.factors.map { factor in
                var factor = factor
                factor.id = "f1-moved"
                return factor
            }
            let outcomes = try await store.importAccounts(
                [Self.account("moved", email: "moved@example.com"), Self.account("with", email: "with@example.com")],
                secondFactors: [AccountID("moved"): moved, AccountID("with"): moved])
            #expect(outcomes == [.imported, .unchanged])
            let restored = try await store.secondFactors(uid: AccountID("moved"))
            #expect(restored.map(\.id) == ["f1-moved"] && restored.first?.uid == AccountID("moved"))
            #expect(restored.first?.lastUsedStep == 10 && restored.first?.enrolledAt == set.factors.first?.enrolledAt)
            #expect(try await store.recoveryCodesLeft(uid: AccountID("moved")) == 2)
            #expect(try await store.secondFactors(uid: AccountID("with")).map(\.id) == ["f1-with"])

            // A factor id taken already refuses the batch: nothing of it is written.
            let taken = await #expect(throws: AccountStoreError.self) {
                _ = try await store.importAccounts(
                    [Self.account("taken", email: "taken@example.com")], secondFactors: [AccountID("taken"): moved])
            }
            #expect(taken?.code == .alreadyExists)
            #expect(try await store.account(id: AccountID("taken")) == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aCompletionSavesItsChangeOrNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await Self.enrolled(store, "held")
            try await store.create(Self.account("other", email: "other@example.com"))
            _ = try await store.update(id: AccountID("other"), options: AccountWriteOptions()) { account in
                account.identities = [
                    Identity(
                        provider: ProviderID("google"), subject: "g-taken", email: nil, linkedAt: date(ms: Self.t0))
                ]
            }
            let now = date(ms: Self.t0 + 10)
            try await store.insertPendingSignIn(Self.pending("h1", uid: "held"))
            // A change that links an identity linked elsewhere: nothing is written, the pending sign-in and step kept.
            let linked = await #expect(throws: AccountStoreError.self) {
                _ = try await store.completeSecondFactor(
                    pendingHash: "h1", proof: .totp(factorID: "f1-held", step: 11), at: now,
                    options: AccountWriteOptions()
                ) { account in
                    account.identities.append(
                        Identity(provider: ProviderID("google"), subject: "g-taken", email: nil, linkedAt: now))
                }
            }
            #expect(linked?.code == .alreadyExists)
            #expect(try await store.pendingSignIn(hash: "h1", at: now) != nil)
            #expect(try await store.secondFactor(id: "f1-held", uid: AccountID("held"))?.lastUsedStep == 10)
            // A change that throws: nothing either.
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                _ = try await store.completeSecondFactor(
                    pendingHash: "h1", proof: .totp(factorID: "f1-held", step: 11), at: now,
                    options: AccountWriteOptions()
                ) { _ in throw Refused() }
            }
            #expect(try await store.pendingSignIn(hash: "h1", at: now) != nil)
            // A link: saved with the completion, the mark consumed with it.
            let mark = SingleUseMark(key: "held-token", expiresAt: fixture.clock.now + 600)
            let account = try await store.completeSecondFactor(
                pendingHash: "h1", proof: .totp(factorID: "f1-held", step: 11), at: now,
                options: AccountWriteOptions(consuming: mark)
            ) { account in
                account.identities.append(
                    Identity(provider: ProviderID("google"), subject: "g-held", email: nil, linkedAt: now))
            }
            #expect(account.identities.map(\.subject) == ["g-held"] && account.lastSignInAt == now)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-held")?.id == AccountID("held"))
            #expect(try await store.pendingSignIn(hash: "h1", at: now) == nil)
            #expect(try await store.secondFactor(id: "f1-held", uid: AccountID("held"))?.lastUsedStep == 11)
            await expectStoreError(.alreadyUsed) {
                _ = try await store.update(id: AccountID("held"), options: AccountWriteOptions(consuming: mark)) { _ in
                }
            }
        }
    }
}
