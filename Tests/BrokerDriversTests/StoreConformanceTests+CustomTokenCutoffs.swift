import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Each uid's custom-token cutoff (contract section 11): set in the transaction of a write that asks for it (a
/// takeover, a password reset) and of every deletion, kept after the account is gone, and checked inside the
/// transaction of a custom-token sign-in, which then writes nothing.
extension StoreConformanceTests {
    static func seconds(_ date: Date?) -> TimeInterval? { date?.timeIntervalSince1970 }

    @Test(arguments: StoreBackend.enabled)
    func theCutoffIsSetByAWriteThatAsksAndByEveryDeletionAndOutlivesTheAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let t0 = fixture.clock.now.timeIntervalSince1970.rounded(.down)
            let alice = Self.account("alice", email: "alice@example.com")
            try await store.create(alice)
            #expect(try await store.customTokenCutoff(uid: alice.id) == nil)
            // A revocation alone (an admin's revoke-sessions) sets none.
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(revokeSessions: true)) { _ in }
            #expect(try await store.customTokenCutoff(uid: alice.id) == nil)
            // A write that asks sets the whole second of its time.
            fixture.clock.advance(by: 5.7)
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(cutsOffCustomTokens: true)) { account in
                account.displayName = "Alice"
            }
            #expect(Self.seconds(try await store.customTokenCutoff(uid: alice.id)) == t0 + 5)
            // It never moves back.
            fixture.clock.advance(by: -3)
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(cutsOffCustomTokens: true)) { _ in }
            #expect(Self.seconds(try await store.customTokenCutoff(uid: alice.id)) == t0 + 5)
            // A deletion sets it whatever its options, and it outlives the account.
            fixture.clock.advance(by: 10)
            try await store.delete(id: alice.id, options: AccountWriteOptions())
            #expect(try await store.account(id: alice.id) == nil)
            #expect(Self.seconds(try await store.customTokenCutoff(uid: alice.id)) == t0 + 12)
            #expect(try await store.customTokenCutoff(uid: AccountID("nobody")) == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aCustomTokenSignInUpToTheCutoffWritesNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let t0 = fixture.clock.now.timeIntervalSince1970.rounded(.down)
            func issued(_ offset: TimeInterval) -> AccountWriteOptions {
                AccountWriteOptions(customTokenIssuedAt: Date(timeIntervalSince1970: t0 + offset))
            }
            // No cutoff: any token, even one without an iat, signs in.
            try await store.create(Self.account("fresh"), options: AccountWriteOptions(customTokenIssuedAt: .distantPast))
            #expect(try await store.account(id: AccountID("fresh")) != nil)

            let alice = Self.account("alice", email: "alice@example.com")
            try await store.create(alice)
            fixture.clock.advance(by: 0.5)
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(cutsOffCustomTokens: true)) { _ in }
            let before = try await store.account(id: alice.id)
            // Minted in the cutoff's second or before: refused, and the change is not made.
            for offset in [0.9, 0, -100] {
                await expectStoreError(.cutOff) {
                    _ = try await store.update(id: alice.id, options: issued(offset)) { account in
                        account.displayName = "Squatter"
                    }
                }
            }
            #expect(try await store.account(id: alice.id) == before)
            // Minted in a later second: signs in.
            let after = try await store.update(id: alice.id, options: issued(1)) { account in account.displayName = "Alice" }
            #expect(after.displayName == "Alice")

            // A deleted uid is not made again by a token minted before its deletion.
            fixture.clock.advance(by: 2)
            try await store.delete(id: alice.id, options: AccountWriteOptions())
            await expectStoreError(.cutOff) { try await store.create(Self.account("alice"), options: issued(2.9)) }
            #expect(try await store.account(id: alice.id) == nil)
            try await store.create(Self.account("alice"), options: issued(3))
            #expect(try await store.account(id: alice.id) != nil)
        }
    }
}
