import Foundation
import Testing

@testable import BrokerCore
@testable import BrokerModel
@testable import BrokerStorage

/// A refresh reads its token and the token's account in one look-up (issue 35), on every backend: the same record
/// and the same account, identities included, as the two separate reads.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aRefreshReadsItsTokenAndItsAccountTogether(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", email: "alice@example.com", identities: [Self.identity("kakao", "41")])
            try await store.create(alice)
            try await store.insertRefreshToken(Self.token("h1", session: "s1", uid: "alice"))
            try await store.insertRefreshToken(Self.token("h2", session: "s2", uid: "ghost"))

            let (record, account) = try #require(try await store.refreshTokenAndAccount(hash: "h1"))
            #expect(record == (try await store.refreshToken(hash: "h1")))
            #expect(record.sessionID == "s1" && record.accountID == alice.id)
            #expect(account == (try await store.account(id: alice.id)))
            #expect(account?.identities.map(\.subject) == ["41"])
            #expect(account?.email == "alice@example.com")

            // A token whose account is gone comes back without one; an unknown hash, not at all.
            let (orphan, none) = try #require(try await store.refreshTokenAndAccount(hash: "h2"))
            #expect(orphan.accountID == AccountID("ghost") && none == nil)
            #expect(try await store.refreshTokenAndAccount(hash: "nope") == nil)

            // What the look-up reads is what a rotation left: the retired token's time and its successor.
            let rotatedAt = date(ms: Self.t0 + 60_000)
            #expect(
                try await store.rotateRefreshToken(
                    hash: "h1", at: rotatedAt, successor: Self.token("h3", session: "s1", uid: "alice")))
            #expect(try await store.refreshTokenAndAccount(hash: "h1")?.0.rotatedAt == rotatedAt)
            #expect(try await store.refreshTokenAndAccount(hash: "h3")?.1?.id == alice.id)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aRefreshLookUpReadsEveryIdentityAndTheTokensOwnColumns(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            // Three identities linked out of order (two at the same instant), and a token created 5 s after the
            // account: its `created_at` and the account's are different columns of the same name.
            let bob = Self.account(
                "bob",
                identities: [
                    Self.identity("google", "g1", at: 2_000), Self.identity("kakao", "k1", at: 1_000),
                    Self.identity("apple", "a1", at: 1_000),
                ])
            // An account with no identity at all (a password account): no identity comes back for it.
            let carol = Self.account("carol", email: "carol@example.com")
            try await store.create(bob)
            try await store.create(carol)
            try await store.insertRefreshToken(Self.token("hb", session: "sb", uid: "bob", createdAt: Self.t0 + 5_000))
            try await store.insertRefreshToken(Self.token("hc", session: "sc", uid: "carol"))

            let (bobToken, bobAccount) = try #require(try await store.refreshTokenAndAccount(hash: "hb"))
            #expect(bobToken == (try await store.refreshToken(hash: "hb")))
            #expect(bobToken.createdAt == date(ms: Self.t0 + 5_000) && bobToken.accountID == bob.id)
            #expect(bobAccount == (try await store.account(id: bob.id)))
            #expect(bobAccount?.createdAt == date(ms: Self.t0))
            #expect(bobAccount?.identities.map(\.subject) == ["a1", "k1", "g1"])

            let (carolToken, carolAccount) = try #require(try await store.refreshTokenAndAccount(hash: "hc"))
            #expect(carolToken == (try await store.refreshToken(hash: "hc")))
            #expect(carolAccount == (try await store.account(id: carol.id)))
            #expect(carolAccount?.identities == [])
            #expect(carolAccount?.email == "carol@example.com")
        }
    }

    /// The joined look-ups read a row by column name, and a repeated name reads its first column: the token's,
    /// the account's and the identity's columns must each come under a name of their own (the token's `uid` and
    /// `created_at` are renamed, the identity's prefixed). A column added to one table under a name another has
    /// would make one of them read the other's value; this fails first.
    @Test(arguments: StoreBackend.enabled)
    func theJoinedLookUpsNameEveryColumnOnce(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            guard let database = fixture.database else { return }  // the memory store has no SQL
            try await fixture.store.create(Self.account("alice", identities: [Self.identity("kakao", "41")]))
            try await fixture.store.insertRefreshToken(Self.token("h1", session: "s1", uid: "alice"))
            let statements: [(String, [SQLValue])] = [
                (SQLBrokerStore.selectTokenWithAccountByHash, [.text("h1")]),
                (SQLBrokerStore.selectAccountWithIdentitiesByID, [.text("alice")]),
                (SQLBrokerStore.selectAccountWithIdentitiesByIdentity, [.text("kakao"), .text("41")]),
            ]
            for (sql, binds) in statements {
                let columns = try #require(try await database.read { try $0.query(sql, binds) }.first).columns
                #expect(Set(columns).count == columns.count, "\(columns)")
            }
        }
    }
}
