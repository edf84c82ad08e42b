import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// A refresh token a session keeps (the compatibility listener's, contract section 11) records each use instead of
/// rotating, on every backend: a live token's use is stored, a revoked one's is refused and changes nothing; a guest
/// whose kept token was used since the cutoff is active; the console's last use counts the uses.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aKeptRefreshTokenRecordsItsUsesUntilItsSessionIsRevoked(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("alice"))
            try await store.insertRefreshToken(Self.token("kept", session: "s1", uid: "alice"))
            #expect(try await store.refreshToken(hash: "kept")?.usedAt == nil)
            let used = date(ms: Self.t0 + 3_600_000)
            #expect(try await store.useRefreshToken(hash: "kept", at: used))
            let record = try #require(try await store.refreshToken(hash: "kept"))
            #expect(record.usedAt == used)
            #expect(record.rotatedAt == nil)
            #expect(try await store.sessionSummary(accountID: AccountID("alice"), at: used).lastUsedAt == used)

            try await store.revokeSession(id: "s1", at: date(ms: Self.t0 + 7_200_000))
            #expect(try await !store.useRefreshToken(hash: "kept", at: date(ms: Self.t0 + 7_300_000)))
            #expect(try await store.refreshToken(hash: "kept")?.usedAt == used)
            #expect(try await !store.useRefreshToken(hash: "unknown", at: used))
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aGuestWhoseKeptTokenWasUsedIsActive(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let day: Int64 = 86_400_000
            try await store.create(Self.guest("kept", createdAt: Self.t0))
            try await store.insertRefreshToken(Self.token("h-kept", session: "s-kept", uid: "kept", createdAt: Self.t0))
            try await store.create(Self.guest("idle", createdAt: Self.t0))
            try await store.insertRefreshToken(Self.token("h-idle", session: "s-idle", uid: "idle", createdAt: Self.t0))
            #expect(try await store.useRefreshToken(hash: "h-kept", at: date(ms: Self.t0 + 9 * day)))
            let cutoff = date(ms: Self.t0 + 5 * day)
            #expect(try await store.inactiveGuests(before: cutoff, limit: 10).map(\.rawValue) == ["idle"])
        }
    }
}
