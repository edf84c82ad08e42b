import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The second step of a sign-in held for its second factor (contract section 14) over SQLite, through a database
/// stand-in that can fail the commit of a write transaction: the pending credential spent, the factor's step used,
/// the session, the audit events and the lockout cleared commit together or not at all.
@Suite struct SecondFactorCompletionTests {
    struct Fixture {
        let services: BrokerServices
        let store: SQLBrokerStore
        let database: WatchedSQLDatabase
        let clock: ManualClock
        let uid: AccountID
        let secret: String
        let factorID: String
    }

    /// Services over SQLite with `mfa.totp`, and an account `held@example.com` (password `secret-1`) with a factor.
    static func start() async throws -> Fixture {
        let watched = try await WatchedServices.make(
            cipher: OutboxCipher(key: try AESGCMKey(bytes: SecureRandom.bytes(32)))
        ) { $0["mfa"] = ["totp": ["enabled": true]] }
        let (services, store, database, clock) = (watched.services, watched.store, watched.database, watched.clock)
        let factors = try #require(services.secondFactors)
        let account = try await services.signIn.signUp(
            email: "held@example.com", password: "secret-1", displayName: nil, requestID: "r-up"
        ).account
        let enrolment = try await factors.startEnrolment(for: account)
        let enrolled = try await factors.verifyEnrolment(
            account.id, enrollmentID: enrolment.enrollmentID, code: try code(enrolment.secret, clock),
            displayName: nil, requestID: "r-enrol")
        clock.advance(by: 30)
        return Fixture(
            services: services, store: store, database: database, clock: clock, uid: account.id,
            secret: enrolment.secret,
            factorID: enrolled.factor.id)
    }

    static func code(_ secret: String, _ clock: ManualClock) throws -> String {
        let step = TOTP.step(unixTime: clock.now.timeIntervalSince1970, period: 30)
        return TOTP.code(secret: try #require(Base32.decode(secret)), counter: UInt64(step), digits: 6)
    }

    /// The pending credential of a password sign-in held for its second factor.
    static func held(_ fixture: Fixture) async throws -> String {
        do {
            _ = try await fixture.services.signIn.signIn(
                email: "held@example.com", password: "secret-1", requestID: "r-first")
        } catch let required as SecondFactorRequired {
            return required.pending.credential
        }
        Issue.record("the sign-in was not held")
        return ""
    }

    static func finish(_ fixture: Fixture, _ credential: String) async throws -> SignInResult {
        try await fixture.services.signIn.signIn(
            pendingCredential: credential,
            answer: .totp(factorID: fixture.factorID, code: try code(fixture.secret, fixture.clock)), requestID: "r-mfa"
        )
    }

    /// What the completion changes: live sessions, `mfa` sign-in events, counted wrong attempts, the factor's step.
    struct State: Equatable {
        var sessions: Int
        var signIns: Int
        var failures: Int
        var lastUsedStep: Int64?
    }

    static func state(_ fixture: Fixture) async throws -> State {
        let store = fixture.store
        let events = try await store.auditEvents(uid: fixture.uid, before: nil, limit: 100)
        return State(
            sessions: try await store.sessionSummary(accountID: fixture.uid, at: fixture.clock.now).live,
            signIns: events.filter { $0.action == .signIn && $0.provider == "mfa" && $0.outcome == "success" }.count,
            failures: try await store.loginFailures(emailKey: "held@example.com", since: .distantPast).count,
            lastUsedStep: try await store.secondFactor(id: fixture.factorID, uid: fixture.uid)?.lastUsedStep)
    }

    @Test func aCompletionIsOneCommitAndClearsTheLockoutWithIt() async throws {
        let fixture = try await Self.start()
        let credential = try await Self.held(fixture)
        let before = try await Self.state(fixture)
        // The password and the second step's attempt are counted until the sign-in completes.
        #expect(before.failures == 1)

        // The commit that clears the lockout fails: nothing of the completion is stored, and the pending sign-in
        // and its code still work.
        fixture.database.failCommits(of: "DELETE FROM password_failures WHERE email_key = ?")
        await #expect(throws: AccountStoreError.self) { try await Self.finish(fixture, credential) }
        var after = try await Self.state(fixture)
        after.failures -= 1  // the refused step's own attempt, counted before its code was checked
        #expect(after == before)

        fixture.database.failCommits(of: nil)
        let done = try await Self.finish(fixture, credential)
        #expect(done.account.id == fixture.uid)
        let finished = try await Self.state(fixture)
        #expect(finished.sessions == before.sessions + 1 && finished.signIns == before.signIns + 1)
        #expect(finished.failures == 0)
        #expect(finished.lastUsedStep != before.lastUsedStep)
        // Spent: the same credential completes nothing more, and stores nothing.
        await #expect(throws: SecondFactorError.self) { try await Self.finish(fixture, credential) }
        var spent = try await Self.state(fixture)
        spent.failures = 0
        #expect(spent == finished)
    }

    @Test func aFailedCompletionCommitLeavesThePendingSignInUsable() async throws {
        let fixture = try await Self.start()
        let credential = try await Self.held(fixture)
        let before = try await Self.state(fixture)
        fixture.database.failCommits(of: "DELETE FROM mfa_pending_sign_ins WHERE credential_hash = ?")
        await #expect(throws: AccountStoreError.self) { try await Self.finish(fixture, credential) }
        var after = try await Self.state(fixture)
        after.failures -= 1
        #expect(after == before)
        fixture.database.failCommits(of: nil)
        #expect(try await Self.finish(fixture, credential).account.id == fixture.uid)
        #expect(try await Self.state(fixture).failures == 0)
    }
}
