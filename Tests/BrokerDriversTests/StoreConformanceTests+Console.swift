import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// ``ConsoleStore`` cases of the one conformance suite: console sessions, session summaries, sign-in counts
/// and filtered audit listings, on every backend.
extension StoreConformanceTests {
    static func event(
        _ action: String, at offset: Int64, uid: String? = nil, provider: String? = "google", outcome: String = "success",
        id: String
    ) -> AuditEvent {
        AuditEvent(
            time: date(ms: t0 + offset), uid: uid.map(AccountID.init(rawValue:)), action: AuditAction(rawValue: action), provider: provider,
            actor: .user, outcome: outcome, requestID: "r-\(id)", id: id)
    }

    @Test(arguments: StoreBackend.enabled)
    func consoleSessionsAreFoundByHashEndedAndPurgedOnceExpired(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let old = ConsoleSessionRecord(
                tokenHash: "old", createdAt: date(ms: Self.t0), expiresAt: date(ms: Self.t0 + 1000))
            let live = ConsoleSessionRecord(
                tokenHash: "live", createdAt: date(ms: Self.t0 + 5000), expiresAt: date(ms: Self.t0 + 9000))
            try await store.insertConsoleSession(old)
            #expect(try await store.consoleSession(hash: "old") == old)
            // Inserting after `old` expired deletes it.
            try await store.insertConsoleSession(live)
            #expect(try await store.consoleSession(hash: "old") == nil)
            #expect(try await store.consoleSession(hash: "live") == live)
            await expectStoreError(.alreadyExists) { try await store.insertConsoleSession(live) }
            #expect(try await store.deleteConsoleSession(hash: "live"))
            #expect(try await store.consoleSession(hash: "live") == nil)
            #expect(try await store.deleteConsoleSession(hash: "live") == false)
            #expect(try await store.consoleSession(hash: "missing") == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func sessionSummaryCountsLiveSessionsAndTheLastIssuedToken(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("alice"))
            try await store.create(Self.account("bob"))
            #expect(try await store.sessionSummary(accountID: AccountID("alice"), at: date(ms: Self.t0)) == SessionSummary(live: 0, lastUsedAt: nil))
            try await store.insertRefreshToken(Self.token("a1", session: "s1", uid: "alice", createdAt: Self.t0))
            // A rotation keeps its session live: two tokens, one session.
            #expect(
                try await store.rotateRefreshToken(
                    hash: "a1", at: date(ms: Self.t0 + 10), successor: Self.token("a2", session: "s1", uid: "alice", createdAt: Self.t0 + 10)))
            try await store.insertRefreshToken(Self.token("a3", session: "s2", uid: "alice", createdAt: Self.t0 + 20))
            try await store.insertRefreshToken(Self.token("b1", session: "s3", uid: "bob", createdAt: Self.t0 + 99))
            let now = date(ms: Self.t0 + 100)
            #expect(try await store.sessionSummary(accountID: AccountID("alice"), at: now) == SessionSummary(live: 2, lastUsedAt: date(ms: Self.t0 + 20)))
            try await store.revokeSession(id: "s2", at: now)
            #expect(try await store.sessionSummary(accountID: AccountID("alice"), at: now) == SessionSummary(live: 1, lastUsedAt: date(ms: Self.t0 + 20)))
            // Past every expiry nothing is live; the last use stays.
            let later = date(ms: Self.t0 + 31 * 86_400_000)
            #expect(try await store.sessionSummary(accountID: AccountID("alice"), at: later) == SessionSummary(live: 0, lastUsedAt: date(ms: Self.t0 + 20)))
            #expect(try await store.sessionSummary(accountID: AccountID("bob"), at: now).live == 1)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func signInCountsGroupTheWindowsSignInEventsByBucketProviderAndOutcome(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let minute: Int64 = 60_000
            // t0 is 123 ms past a whole second; the bucket of t0 starts at t0 - (t0 % minute).
            let base = Self.t0 - Self.t0 % minute
            let events = [
                Self.event("sign_in", at: base - Self.t0 - 1, id: "e0"),  // before the window
                Self.event("sign_in", at: base - Self.t0, id: "e1"),
                Self.event("sign_in", at: base - Self.t0 + 10, id: "e2"),
                Self.event("sign_in", at: base - Self.t0 + 20, outcome: "USER_DISABLED", id: "e3"),
                Self.event("sign_in", at: base - Self.t0 + 30, provider: "apple", outcome: "created", id: "e4"),
                Self.event("sign_in", at: base - Self.t0 + minute + 5, id: "e5"),
                Self.event("sign_in", at: base - Self.t0 + 30, provider: nil, outcome: "INVALID_TOKEN", id: "e6"),
                Self.event("unlink", at: base - Self.t0 + 40, id: "e7"),  // not a sign-in
                Self.event("sign_in", at: base - Self.t0 + 2 * minute, id: "e8"),  // at the window's end: outside
            ]
            for event in events { try await store.appendAuditEvent(event) }
            let counts = try await store.signInCounts(
                from: date(ms: base), to: date(ms: base + 2 * minute), bucketMilliseconds: minute)
            #expect(
                counts == [
                    SignInCount(start: date(ms: base), provider: "", outcome: "INVALID_TOKEN", count: 1),
                    SignInCount(start: date(ms: base), provider: "apple", outcome: "created", count: 1),
                    SignInCount(start: date(ms: base), provider: "google", outcome: "USER_DISABLED", count: 1),
                    SignInCount(start: date(ms: base), provider: "google", outcome: "success", count: 2),
                    SignInCount(start: date(ms: base + minute), provider: "google", outcome: "success", count: 1),
                ])
            #expect(try await store.signInCounts(from: date(ms: base - 10 * minute), to: date(ms: base - minute), bucketMilliseconds: minute) == [])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func auditEventsMatchingAFilterAreNewestFirstAndPaged(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let events = [
                Self.event("sign_in", at: 1, uid: "alice", id: "0001"),
                Self.event("disable", at: 2, uid: "alice", provider: nil, id: "0002"),
                AuditEvent(
                    time: date(ms: Self.t0 + 3), uid: AccountID("bob"), action: .signIn, provider: "google", actor: .user,
                    outcome: "USER_DISABLED", requestID: "r-0003", id: "0003",
                    origin: RequestOrigin(clientAddress: "127.0.0.7", userAgent: "console-test/1")),
                Self.event("sign_in", at: 4, uid: "alice", provider: "apple", id: "0004"),
                Self.event("sign_in", at: 5, uid: "alice", id: "0005"),
            ]
            for event in events { try await store.appendAuditEvent(event) }
            func ids(_ filter: AuditFilter, before cursor: PageCursor? = nil, limit: Int = 10) async throws -> [String] {
                try await store.auditEvents(matching: filter, before: cursor, limit: limit).map(\.id)
            }
            #expect(try await ids(AuditFilter()) == ["0005", "0004", "0003", "0002", "0001"])
            #expect(try await ids(AuditFilter(action: .signIn)) == ["0005", "0004", "0003", "0001"])
            #expect(try await ids(AuditFilter(uid: AccountID("alice"), action: .signIn, provider: "google")) == ["0005", "0001"])
            #expect(try await ids(AuditFilter(outcome: "USER_DISABLED")) == ["0003"])
            #expect(try await ids(AuditFilter(action: .takeOver)) == [])
            let first = try await store.auditEvents(matching: AuditFilter(action: .signIn), before: nil, limit: 2)
            let last = try #require(first.last)
            #expect(try await ids(AuditFilter(action: .signIn), before: PageCursor(at: last.time, id: last.id)) == ["0003", "0001"])
            // Stored events keep every field, where the request came from included.
            #expect(try await store.auditEvents(matching: AuditFilter(outcome: "USER_DISABLED"), before: nil, limit: 1) == [events[2]])
        }
    }
}
