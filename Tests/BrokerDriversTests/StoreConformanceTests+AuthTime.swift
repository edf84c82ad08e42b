import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// A session's sign-in time (`auth_time`, contract section 3) is stored with it and kept by every token of the
/// session, on every backend; a row stored before the column existed reads back the time its session id begins with.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aSessionsSignInTimeIsStoredAndKeptByItsRotations(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("alice"))
            let signedIn = date(ms: Self.t0 - 120_000)
            var first = Self.token("h1", session: "s1", uid: "alice")
            first.authTime = signedIn
            try await store.insertRefreshToken(first)
            #expect(try await store.refreshToken(hash: "h1")?.authTime == signedIn)

            var successor = Self.token("h2", session: "s1", uid: "alice", createdAt: Self.t0 + 60_000)
            successor.authTime = signedIn
            #expect(try await store.rotateRefreshToken(hash: "h1", at: date(ms: Self.t0 + 60_000), successor: successor))
            let stored = try #require(try await store.refreshToken(hash: "h2"))
            #expect(stored.authTime == signedIn)
            #expect(stored.createdAt == date(ms: Self.t0 + 60_000))

            // A grant's sign-in time goes into the record it stores with an account write.
            let grant = SessionGrant(
                tokenHash: "h3", sessionID: "s3", signInProvider: "password", createdAt: date(ms: Self.t0),
                expiresAt: date(ms: Self.t0 + 86_400_000), authTime: signedIn)
            _ = try await store.update(id: AccountID("alice"), options: AccountWriteOptions(issuing: grant)) { _ in }
            #expect(try await store.refreshToken(hash: "h3")?.authTime == signedIn)
        }
    }

    @Test(arguments: StoreBackend.enabled.filter { $0 != .memory })
    func aSessionStoredBeforeTheColumnReadsItsIDsTime(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let database = try #require(fixture.database)
            try await store.create(Self.account("alice"))
            let sessionID = SessionGrant.newSessionID(at: date(ms: Self.t0 - 3_600_000))
            try await store.insertRefreshToken(Self.token("old", session: sessionID, uid: "alice"))
            try await store.insertRefreshToken(Self.token("random", session: "s-random", uid: "alice"))
            _ = try await database.write { connection in
                try connection.execute("UPDATE refresh_tokens SET auth_time = NULL", [])
            }
            #expect(try await store.refreshToken(hash: "old")?.authTime == date(ms: Self.t0 - 3_600_000))
            // An id of another form: the token's own creation time.
            #expect(try await store.refreshToken(hash: "random")?.authTime == date(ms: Self.t0))
        }
    }
}
