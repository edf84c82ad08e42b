import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A password sign-in is two write transactions: the attempt counted toward the lockout (kept even when the password
/// is wrong), then the commit, which stores the session and the event and forgets the counted attempts together. A
/// sign-in whose commit fails leaves the count as it was.
@Suite struct PasswordSignInCommitTests {
    struct Fixture {
        let services: BrokerServices
        let store: SQLBrokerStore
        let database: WatchedSQLDatabase
        let clock: ManualClock
        let uid: AccountID
    }

    static let email = "owner@example.com"

    static func start() async throws -> Fixture {
        let watched = try await WatchedServices.make()
        let (services, store, database, clock) = (watched.services, watched.store, watched.database, watched.clock)
        let account = try await services.signIn.signUp(
            email: email, password: "secret-1", displayName: nil, requestID: "r-up"
        ).account
        return Fixture(services: services, store: store, database: database, clock: clock, uid: account.id)
    }

    /// Live sessions, successful password sign-in events, counted failures.
    static func state(_ fixture: Fixture) async throws -> [Int] {
        let store = fixture.store
        let events = try await store.auditEvents(uid: fixture.uid, before: nil, limit: 100)
        return [
            try await store.sessionSummary(accountID: fixture.uid, at: fixture.clock.now).live,
            events.filter { $0.action == .signIn && $0.provider == "password" && $0.outcome == "success" }.count,
            try await store.loginFailures(emailKey: email, since: .distantPast).count,
        ]
    }

    static func signIn(_ fixture: Fixture, _ password: String) async throws -> SignInResult {
        try await fixture.services.signIn.signIn(email: email, password: password, requestID: "r-in")
    }

    @Test func theCountEndsInTheSignInsOwnCommit() async throws {
        let fixture = try await Self.start()
        await #expect(throws: AccountError.self) { try await Self.signIn(fixture, "wrong-password") }
        let before = try await Self.state(fixture)
        #expect(before[2] == 1)

        // The commit fails (its session is not stored): the sign-in stores nothing, and the count is not forgotten
        // (only this attempt's own count is added, as every attempt's is before its password is checked).
        fixture.database.failCommits(of: "INSERT INTO refresh_tokens")
        await #expect(throws: AccountStoreError.self) { try await Self.signIn(fixture, "secret-1") }
        #expect(try await Self.state(fixture) == [before[0], before[1], before[2] + 1])

        // The same sign-in committed: one session, one event, and the count is gone, with one statement that
        // forgets it.
        fixture.database.failCommits(of: nil)
        fixture.database.count("DELETE FROM password_failures WHERE email_key = ?")
        let done = try await Self.signIn(fixture, "secret-1")
        #expect(done.account.id == fixture.uid)
        #expect(try await Self.state(fixture) == [before[0] + 1, before[1] + 1, 0])
        #expect(fixture.database.statements == 1)
    }

    @Test func aPasswordSignInWritesTwice() async throws {
        let fixture = try await Self.start()
        fixture.database.countWrites()
        _ = try await Self.signIn(fixture, "secret-1")
        // The attempt counted, then the commit (which forgets the count): no transaction of its own for that.
        #expect(fixture.database.writes == 2)
        #expect(try await Self.state(fixture) == [2, 1, 0])
    }
}
