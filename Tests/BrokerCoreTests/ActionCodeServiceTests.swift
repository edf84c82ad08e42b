import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Action codes without mail (Firebase's `returnOobLink`), their look-up, confirmation and the email sign-in
/// (`EMAIL_SIGNIN`), over the memory store: each refusal leaves the code unused and the account unchanged.
@Suite struct ActionCodeServiceTests {
    struct Fixture {
        let store: MemoryBrokerStore
        let clock: ManualClock
        let service: ActionCodeService

        init(revokesFirebaseSessions: Bool = false) {
            clock = ManualClock()
            store = MemoryBrokerStore(clock: clock)
            service = ActionCodeService(
                accounts: store, codes: store, passwords: SaltedDigestPasswordHasher(), clock: clock,
                issuer: "https://auth.example.com",
                revocation: SessionRevocation(elsewhere: revokesFirebaseSessions ? [FirebaseRevocation()] : []))
        }

        func grant(_ name: String) -> SessionGrant {
            SessionGrant(
                tokenHash: "token-" + name, sessionID: "session-" + name, signInProvider: "password",
                createdAt: clock.now, expiresAt: clock.now + 3600)
        }

        /// An account with an unverified email, a password, a Google identity and a live session.
        func squatted(_ email: String) async throws -> Account {
            let account = Account(
                id: AccountID("squatted"), email: email, emailVerified: false, createdAt: clock.now,
                identities: [
                    Identity(provider: ProviderID("google"), subject: "g-squatter", email: email, linkedAt: clock.now)
                ],
                password: .chosen("salted$squatter"))
            try await store.create(account, options: AccountWriteOptions(issuing: grant("squatter")))
            return account
        }

        func query(_ link: String) throws -> [String: String] {
            let items = try #require(URLComponents(string: link)?.queryItems)
            return Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        }
    }

    @Test func anAdminLinkIsTheBrokersPageWithAHashedSingleUseCodeAndSendsNothing() async throws {
        let fixture = Fixture()
        try await fixture.store.create(
            Account(id: AccountID("u1"), email: "Ann@example.com", createdAt: fixture.clock.now))
        let link = try await fixture.service.issueLink(
            .resetPassword, email: "ann@example.com", continueURL: "https://app.example.com/done?x=1", requestID: "r1")
        #expect(link.email == "Ann@example.com")
        #expect(link.oobLink.hasPrefix("https://auth.example.com/auth/action?"))
        let query = try fixture.query(link.oobLink)
        #expect(
            query == [
                "mode": "resetPassword", "oobCode": link.oobCode, "continueUrl": "https://app.example.com/done?x=1",
            ])
        #expect(Base64URL.decode(link.oobCode)?.count == 32)
        // Only the hash is stored; no mail is queued.
        let hash = Hex.encode(Digest.sha256(Array(link.oobCode.utf8)))
        let record = try #require(await fixture.store.oobCode(hash: hash))
        #expect(record.uid == AccountID("u1"))
        #expect(record.action == .resetPassword)
        #expect(await fixture.store.oobCode(hash: link.oobCode) == nil)
        #expect(await fixture.store.outboxJobs(uid: nil, limit: 10).isEmpty)
        let events = await fixture.store.auditEvents(uid: AccountID("u1"), before: nil, limit: 10)
        #expect(events.map(\.action.rawValue) == ["oob_link_issued"])
        #expect(events.first?.actor == .admin)
    }

    @Test func aResetOrVerificationLinkNeedsAnAccountAndAnAbsoluteContinueURL() async throws {
        let fixture = Fixture()
        for action in [MailAction.resetPassword, .verifyEmail] {
            await #expect(throws: ActionCodeError(.accountNotFound)) {
                _ = try await fixture.service.issueLink(
                    action, email: "nobody@example.com", continueURL: nil, requestID: "r")
            }
        }
        await #expect(throws: AccountError(.invalidEmail)) {
            _ = try await fixture.service.issueLink(.signIn, email: "not-an-email", continueURL: nil, requestID: "r")
        }
        await #expect(throws: ActionCodeError(.invalidContinueURL)) {
            _ = try await fixture.service.issueLink(
                .signIn, email: "a@example.com", continueURL: "/relative", requestID: "r")
        }
        #expect(await fixture.store.auditEvents(uid: nil, before: nil, limit: 10).isEmpty)
        #expect(await fixture.store.account(email: "nobody@example.com") == nil)
    }

    @Test func inspectingACodeUsesNothingAndAResetEndsEverySession() async throws {
        let fixture = Fixture(revokesFirebaseSessions: true)
        try await fixture.store.create(
            Account(
                id: AccountID("u1"), email: "a@example.com", emailVerified: true, createdAt: fixture.clock.now,
                password: .chosen("salted$old")),
            options: AccountWriteOptions(issuing: fixture.grant("old")))
        let link = try await fixture.service.issueLink(
            .resetPassword, email: "a@example.com", continueURL: nil, requestID: "r")
        let info = try await fixture.service.inspect(code: link.oobCode)
        #expect(info.action == .resetPassword)
        #expect(info.email == "a@example.com")
        #expect(info.continueURL == nil)
        #expect(try await fixture.service.inspect(code: link.oobCode).action == .resetPassword)
        // A reset code is not a verification.
        await #expect(throws: ActionCodeError.self) {
            _ = try await fixture.service.confirm(
                code: link.oobCode, expecting: .verifyEmail, newPassword: nil, requestID: "r")
        }
        #expect(
            await fixture.store.isSessionLive(id: "session-old", accountID: AccountID("u1"), at: fixture.clock.now))

        let done = try await fixture.service.confirm(code: link.oobCode, newPassword: "new-secret-1", requestID: "r")
        #expect(done.action == .resetPassword)
        #expect(done.jobs.map(\.kind) == [.firebaseRevoke])
        #expect(done.account.password?.hash != "salted$old")
        #expect(
            await fixture.store.isSessionLive(id: "session-old", accountID: AccountID("u1"), at: fixture.clock.now)
                == false)
        // The reset changed the password, which retires every reset code of the account, this one included.
        await #expect(throws: ActionCodeError(.invalidCode, "unknown")) {
            _ = try await fixture.service.inspect(code: link.oobCode)
        }
        await #expect(throws: ActionCodeError.self) {
            _ = try await fixture.service.confirm(code: link.oobCode, newPassword: "newer-secret-2", requestID: "r")
        }
        #expect(await fixture.store.account(id: AccountID("u1"))?.password?.hash == done.account.password?.hash)
    }

    @Test func anExpiredCodeIsExpiredAndAMalformedOneInvalid() async throws {
        let fixture = Fixture()
        let link = try await fixture.service.issueLink(
            .signIn, email: "new@example.com", continueURL: nil, requestID: "r")
        for bad in ["", "not base64!", String(repeating: "A", count: 129), Base64URL.encode(SecureRandom.bytes(32))] {
            await #expect(throws: ActionCodeError.self) { _ = try await fixture.service.inspect(code: bad) }
        }
        fixture.clock.advance(by: EmailActionService.codeLifetime)
        do {
            _ = try await fixture.service.signIn(
                email: "new@example.com", code: link.oobCode, session: nil, requestID: "r")
            Issue.record("an expired code signed in")
        } catch let error as ActionCodeError {
            #expect(error.code == .expiredCode)
        }
        #expect(await fixture.store.account(email: "new@example.com") == nil)
    }

    @Test func anEmailSignInCreatesTheVerifiedAccountOnceWithTheSession() async throws {
        let fixture = Fixture()
        let link = try await fixture.service.issueLink(
            .signIn, email: "New@Example.com", continueURL: "https://app.example.com/finish", requestID: "r")
        #expect(try fixture.query(link.oobLink)["mode"] == "signIn")
        // The code names nobody's address but its own, and a wrong email leaves it unused.
        await #expect(throws: ActionCodeError(.wrongEmail)) {
            _ = try await fixture.service.signIn(
                email: "other@example.com", code: link.oobCode, session: nil, requestID: "r")
        }
        #expect(await fixture.store.account(email: "other@example.com") == nil)
        // It is no verification or reset code either.
        await #expect(throws: ActionCodeError.self) {
            _ = try await fixture.service.confirm(code: link.oobCode, newPassword: "whatever-1", requestID: "r")
        }
        #expect(await fixture.store.account(email: "new@example.com") == nil)

        let signedIn = try await fixture.service.signIn(
            email: "new@example.com", code: link.oobCode, session: fixture.grant("new"), requestID: "r")
        #expect(signedIn.isNewUser)
        let stored = try #require(await fixture.store.account(email: "new@example.com"))
        #expect(stored.id == signedIn.account.id)
        #expect(stored.emailVerified)
        #expect(stored.password?.hash == nil)
        #expect(stored.origin == .emailLink)
        #expect(await fixture.store.isSessionLive(id: "session-new", accountID: stored.id, at: fixture.clock.now))

        await #expect(throws: ActionCodeError.self) {
            _ = try await fixture.service.signIn(
                email: "new@example.com", code: link.oobCode, session: fixture.grant("again"), requestID: "r")
        }
        #expect(
            await fixture.store.isSessionLive(id: "session-again", accountID: stored.id, at: fixture.clock.now)
                == false)

        // A second link signs in to the same account.
        let second = try await fixture.service.issueLink(
            .signIn, email: "new@example.com", continueURL: nil, requestID: "r")
        let again = try await fixture.service.signIn(
            email: "NEW@example.com", code: second.oobCode, session: fixture.grant("second"), requestID: "r")
        #expect(again.isNewUser == false)
        #expect(again.account.id == stored.id)
    }

    @Test func aFirstProofOfTheEmailTakesTheAccountFromASquatter() async throws {
        let fixture = Fixture(revokesFirebaseSessions: true)
        let squatted = try await fixture.squatted("victim@example.com")
        let link = try await fixture.service.issueLink(
            .signIn, email: "victim@example.com", continueURL: nil, requestID: "r")
        let signedIn = try await fixture.service.signIn(
            email: "victim@example.com", code: link.oobCode, session: fixture.grant("owner"), requestID: "r")
        #expect(signedIn.isNewUser == false)
        #expect(signedIn.jobs.map(\.kind) == [.firebaseRevoke])
        let stored = try #require(await fixture.store.account(id: squatted.id))
        #expect(stored.emailVerified)
        #expect(stored.identities.isEmpty)
        #expect(stored.password?.hash == nil)
        #expect(await fixture.store.account(provider: ProviderID("google"), subject: "g-squatter") == nil)
        #expect(
            await fixture.store.isSessionLive(id: "session-squatter", accountID: squatted.id, at: fixture.clock.now)
                == false)
        #expect(
            await fixture.store.isSessionLive(id: "session-owner", accountID: squatted.id, at: fixture.clock.now))
        let events = await fixture.store.auditEvents(uid: squatted.id, before: nil, limit: 10)
        #expect(events.contains { $0.action == .signIn && $0.outcome == "take_over" })
    }

    @Test func aDisabledAccountIsRefusedAndTheCodeStaysUnused() async throws {
        let fixture = Fixture()
        try await fixture.store.create(
            Account(
                id: AccountID("off"), email: "off@example.com", emailVerified: false, disabled: true,
                createdAt: fixture.clock.now))
        let link = try await fixture.service.issueLink(
            .signIn, email: "off@example.com", continueURL: nil, requestID: "r")
        await #expect(throws: AccountError(.userDisabled)) {
            _ = try await fixture.service.signIn(
                email: "off@example.com", code: link.oobCode, session: fixture.grant("off"), requestID: "r")
        }
        #expect(await fixture.store.account(id: AccountID("off"))?.emailVerified == false)
        #expect(
            await fixture.store.isSessionLive(id: "session-off", accountID: AccountID("off"), at: fixture.clock.now)
                == false)
        #expect(try await fixture.service.inspect(code: link.oobCode).action == .signIn)
    }
}
