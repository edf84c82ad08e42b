import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Exact revocation rests on one store question: is this session live? (Every backend.)
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aSessionIsLiveUntilItIsRevokedExpiredOrItsAccountDeleted(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("alice"))
            try await store.create(Self.account("bob"))
            for (hash, session, uid) in [("h1", "s1", "alice"), ("h2", "s2", "alice"), ("h3", "s3", "bob")] {
                try await store.insertRefreshToken(Self.token(hash, session: session, uid: uid))
            }
            let now = date(ms: Self.t0 + 1000)
            #expect(try await store.isSessionLive(id: "s1", accountID: AccountID("alice"), at: now))
            // Another account's session id, an unknown one, and a time past the tokens' expiry are not live.
            #expect(try await !store.isSessionLive(id: "s3", accountID: AccountID("alice"), at: now))
            #expect(try await !store.isSessionLive(id: "nope", accountID: AccountID("alice"), at: now))
            #expect(try await !store.isSessionLive(id: "s1", accountID: AccountID("alice"), at: date(ms: Self.t0 + 31 * 86_400_000)))

            // A rotation keeps the session live; a revocation of it ends it alone.
            let successor = Self.token("h1b", session: "s1", uid: "alice", createdAt: Self.t0 + 500)
            #expect(try await store.rotateRefreshToken(hash: "h1", at: now, successor: successor))
            #expect(try await store.isSessionLive(id: "s1", accountID: AccountID("alice"), at: now))
            try await store.revokeSession(id: "s1", at: now)
            #expect(try await !store.isSessionLive(id: "s1", accountID: AccountID("alice"), at: now))
            #expect(try await store.isSessionLive(id: "s2", accountID: AccountID("alice"), at: now))

            // Revoking the account's sessions ends all of them, and no other account's.
            try await store.revokeSessions(accountID: AccountID("alice"), at: now)
            #expect(try await !store.isSessionLive(id: "s2", accountID: AccountID("alice"), at: now))
            #expect(try await store.isSessionLive(id: "s3", accountID: AccountID("bob"), at: now))

            // Deleting the account ends its sessions.
            try await store.delete(id: AccountID("bob"))
            #expect(try await !store.isSessionLive(id: "s3", accountID: AccountID("bob"), at: now))
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aLiveSessionIsReadTogetherWithItsAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account(
                "alice", email: "alice@example.com",
                identities: [Self.identity("google", "g1", at: 2_000), Self.identity("apple", "a1", at: 1_000)])
            try await store.create(alice)
            try await store.create(Self.account("bob"))
            for (hash, session, uid) in [("h1", "s1", "alice"), ("h2", "s2", "bob"), ("h3", "s3", "ghost")] {
                try await store.insertRefreshToken(Self.token(hash, session: session, uid: uid))
            }
            let now = date(ms: Self.t0 + 1000)

            // Live: the account as `account(id:)` reads it, identities in their order; one with none has none.
            let read = try await store.liveSessionAccount(id: "s1", accountID: alice.id, at: now)
            #expect(read.live)
            #expect(read.account == (try await store.account(id: alice.id)))
            #expect(read.account?.identities.map(\.subject) == ["a1", "g1"])
            let bob = try await store.liveSessionAccount(id: "s2", accountID: AccountID("bob"), at: now)
            #expect(bob.live && bob.account?.identities == [])
            #expect(bob.account == (try await store.account(id: AccountID("bob"))))
            // Live, and the account gone: no account.
            let ghost = try await store.liveSessionAccount(id: "s3", accountID: AccountID("ghost"), at: now)
            #expect(ghost.live && ghost.account == nil)

            // Not live (another account's session, past the tokens' expiry, revoked): no account read.
            let other = try await store.liveSessionAccount(id: "s2", accountID: alice.id, at: now)
            #expect(!other.live && other.account == nil)
            let late = date(ms: Self.t0 + 31 * 86_400_000)
            let expired = try await store.liveSessionAccount(id: "s1", accountID: alice.id, at: late)
            #expect(!expired.live && expired.account == nil)
            try await store.revokeSession(id: "s1", at: now)
            let ended = try await store.liveSessionAccount(id: "s1", accountID: alice.id, at: now)
            #expect(!ended.live && ended.account == nil)
        }
    }
}
