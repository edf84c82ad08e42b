import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// A sign-in held for its second factor on every backend: holding it spends the first factor's single-use mark with
/// the pending sign-in (a replay stores nothing), and completing it clears the account's lockout count in the same
/// transaction (a refused completion leaves it).
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aHoldSpendsItsMarkAndACompletionClearsTheLockout(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let uid = AccountID("spend")
            let now = date(ms: Self.t0 + 10)
            try await Self.enrolled(store, "spend")
            let mark = SingleUseMark(key: "held-token", expiresAt: fixture.clock.now + 600)
            try await store.insertPendingSignIn(Self.pending("s1", uid: "spend"), consuming: mark)
            #expect(try await store.pendingSignIn(hash: "s1", at: now)?.uid == uid)
            // The same mark again is refused, and holds nothing.
            await expectStoreError(.alreadyUsed) {
                try await store.insertPendingSignIn(Self.pending("s2", uid: "spend"), consuming: mark)
            }
            #expect(try await store.pendingSignIn(hash: "s2", at: now) == nil)
            await expectStoreError(.alreadyUsed) { try await store.consume(mark) }

            let key = "spend@example.com"
            #expect(try await store.reserveLoginAttempt(emailKey: key, at: now, window: 900, limit: 10) == nil)
            // A refused completion (a used step) leaves the count, and the pending sign-in.
            await expectStoreError(.stale) {
                _ = try await store.completeSecondFactor(
                    pendingHash: "s1", proof: .totp(factorID: "f1-spend", step: 10), at: now,
                    options: AccountWriteOptions(), clearingFailuresOf: key
                ) { _ in }
            }
            #expect(try await store.loginFailures(emailKey: key, since: .distantPast).count == 1)
            let account = try await store.completeSecondFactor(
                pendingHash: "s1", proof: .totp(factorID: "f1-spend", step: 11), at: now,
                options: AccountWriteOptions(), clearingFailuresOf: key
            ) { _ in }
            #expect(account.id == uid)
            #expect(try await store.loginFailures(emailKey: key, since: .distantPast).isEmpty)
            #expect(try await store.pendingSignIn(hash: "s1", at: now) == nil)
        }
    }
}
