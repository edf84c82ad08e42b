import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 14 over the native API: authenticator-app enrolment, the sign-in's second step with a TOTP
/// code or a recovery code, every refusal (status, code, state after, counted once, audited once), the lockout, and
/// the removal of a squatter's factors by a takeover.
@Suite struct SecondFactorTests {
    static let adminToken = "admin-token-for-mfa-tests-0123456789"

    static var cipher: OutboxCipher {
        get throws { OutboxCipher(key: try AESGCMKey(bytes: Array(repeating: 7, count: 32))) }
    }

    /// The reset codes mailed to `email` (the outbox seals mails with the cipher).
    static func resetCodes(_ broker: InProcessBroker, to email: String) async throws -> [String] {
        let cipher = try Self.cipher
        return try await broker.store.outboxJobs(uid: nil, limit: 1000).compactMap { job in
            guard job.kind == .mail, let mail = JSONValue.parse(try cipher.opening(job)),
                mail["to"]?.stringValue == email, let text = mail["text"]?.stringValue,
                let range = text.range(of: "oobCode=")
            else { return nil }
            return String(text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }

    static func start(enabled: Bool = true, mail: Bool = false) async throws -> (InProcessBroker, ManualClock) {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(clock: clock, adminToken: adminToken, cipher: try Self.cipher) {
            document in
            guard enabled, case .object(var members) = document else { return document }
            members["mfa"] = ["totp": ["enabled": true, "issuer": "Acme Bank"]]
            if mail { members["mail"] = ["smtpUrl": "smtp://127.0.0.1:2525", "from": "no-reply@example.com"] }
            return .object(members)
        }
        return (broker, clock)
    }

    static func bearer(_ response: TestResponse) -> [String: String] {
        ["Authorization": "Bearer " + (response.json?["idToken"]?.stringValue ?? "")]
    }

    static func code(_ secret: String, _ clock: ManualClock, offset: Int = 0) throws -> String {
        let step = TOTP.step(unixTime: clock.now.timeIntervalSince1970, period: 30)
        return TOTP.code(secret: try #require(Base32.decode(secret)), counter: UInt64(Int(step) + offset), digits: 6)
    }

    /// An account `email` (password `secret-1`) with one enrolled factor: its session, secret, factor id and codes.
    struct Enrolled {
        var session: TestResponse
        var uid: AccountID
        var secret: String
        var factorID: String
        var recoveryCodes: [String]
    }

    static func enrolled(_ broker: InProcessBroker, _ clock: ManualClock, _ email: String) async throws -> Enrolled {
        let session = await broker.post("/v1/signup", ["email": .string(email), "password": "secret-1"])
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        let started = await broker.post("/v1/me/mfa/totp", [:], headers: bearer(session))
        #expect(started.status == 200)
        let secret = try #require(started.json?["secret"]?.stringValue)
        let enrollmentID = try #require(started.json?["enrollmentId"]?.stringValue)
        let verified = await broker.post(
            "/v1/me/mfa/totp/verify",
            ["enrollmentId": .string(enrollmentID), "code": .string(try code(secret, clock)), "displayName": "Phone"],
            headers: bearer(session))
        #expect(verified.status == 200)
        let codes = try #require(verified.json?["recoveryCodes"]?.arrayValue).compactMap(\.stringValue)
        let factorID = try #require(verified.json?["factor"]?["factorId"]?.stringValue)
        clock.advance(by: 30)  // the enrolment's code is used: the next sign-in needs the next step's
        return Enrolled(session: session, uid: uid, secret: secret, factorID: factorID, recoveryCodes: codes)
    }

    static func signIn(_ broker: InProcessBroker, _ email: String, password: String = "secret-1") async -> TestResponse
    {
        await broker.post("/v1/signin/password", ["email": .string(email), "password": .string(password)])
    }

    static func pending(_ response: TestResponse) throws -> String {
        try #require(response.json?["error"]?["mfaPendingCredential"]?.stringValue)
    }

    static func claims(_ response: TestResponse) throws -> [String: JSONValue] {
        try JWT(parsing: try #require(response.json?["idToken"]?.stringValue)).claims
    }

    static func liveSessions(_ broker: InProcessBroker, _ uid: AccountID) async -> Int {
        await broker.store.sessionSummary(accountID: uid, at: broker.services.clock.now).live
    }

    static func events(_ broker: InProcessBroker, _ action: AuditAction) async -> [AuditEvent] {
        await broker.store.auditEvents(uid: nil, before: nil, limit: 200).filter { $0.action == action }
    }

    @Test func enrolmentGivesAnOtpauthURIAndNeedsTheRightCode() async throws {
        let (broker, clock) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "enrol@example.com", "password": "secret-1"])
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        let started = await broker.post("/v1/me/mfa/totp", [:], headers: Self.bearer(session))
        #expect(started.status == 200)
        let secret = try #require(started.json?["secret"]?.stringValue)
        #expect(Base32.decode(secret)?.count == 20)
        #expect(
            started.json?["otpauthUri"]?.stringValue
                == "otpauth://totp/Acme%20Bank:enrol@example.com?secret=\(secret)&issuer=Acme%20Bank"
                + "&algorithm=SHA1&digits=6&period=30")
        let id = try #require(started.json?["enrollmentId"]?.stringValue)
        // The secret is stored sealed, never in clear.
        let stored = try #require(await broker.store.secondFactor(id: id, uid: uid))
        #expect(stored.sealedSecret != secret && !stored.sealedSecret.contains(secret))

        let wrong = await broker.post(
            "/v1/me/mfa/totp/verify", ["enrollmentId": .string(id), "code": "000000"], headers: Self.bearer(session))
        #expect(wrong.status == 400 && wrong.errorCode == "INVALID_MFA_CODE")
        #expect(await broker.store.secondFactors(uid: uid).isEmpty)
        let right = await broker.post(
            "/v1/me/mfa/totp/verify", ["enrollmentId": .string(id), "code": .string(try Self.code(secret, clock))],
            headers: Self.bearer(session))
        #expect(right.status == 200)
        #expect(right.json?["factor"]?["type"] == "totp")
        #expect(right.json?["recoveryCodes"]?.arrayValue?.count == 10)
        let listed = await broker.get("/v1/me/mfa", headers: Self.bearer(session))
        #expect(listed.json?["factors"]?.arrayValue?.count == 1)
        #expect(listed.json?["recoveryCodesLeft"] == 10)
        #expect(await Self.events(broker, .mfaEnroll).count == 1)
        // A verified enrolment is not verified again.
        let again = await broker.post(
            "/v1/me/mfa/totp/verify", ["enrollmentId": .string(id), "code": .string(try Self.code(secret, clock))],
            headers: Self.bearer(session))
        #expect(again.status == 404 && again.errorCode == "NOT_FOUND")
    }

    @Test func aPasswordSignInIsHeldAndFinishedWithACodeOnce() async throws {
        let (broker, clock) = try await Self.start()
        let user = try await Self.enrolled(broker, clock, "held@example.com")
        let before = await Self.liveSessions(broker, user.uid)
        let held = await Self.signIn(broker, "held@example.com")
        #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
        let factor = held.json?["error"]?["factors"]?.arrayValue?.first
        #expect(factor?["factorId"]?.stringValue == user.factorID)
        #expect(factor?["displayName"] == "Phone" && factor?["type"] == "totp")
        #expect(held.json?["idToken"] == nil)
        #expect(await Self.liveSessions(broker, user.uid) == before)
        let credential = try Self.pending(held)

        let done = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(credential), "factorId": .string(user.factorID),
                "code": .string(try Self.code(user.secret, clock)),
            ])
        #expect(done.status == 200)
        let claims = try Self.claims(done)
        #expect(claims["mfa"] == "totp")
        #expect(claims["firebase"]?["sign_in_provider"] == "password" || claims["sign_in_provider"] == "password")
        #expect(await Self.liveSessions(broker, user.uid) == before + 1)
        #expect(
            SignInFlowTests.samples(broker, "broker_signins_total")
                == [
                    "{provider=\"password\",outcome=\"MFA_REQUIRED\"}": 1, "{provider=\"mfa\",outcome=\"success\"}": 1,
                ])
        let signIns = await Self.events(broker, .signIn)
        #expect(signIns.map(\.provider) == ["mfa"] && signIns.first?.uid == user.uid)
        // Spent: the credential finishes nothing again, and stores nothing.
        let replay = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(credential), "factorId": .string(user.factorID),
                "code": .string(try Self.code(user.secret, clock, offset: 1)),
            ])
        #expect(replay.status == 401 && replay.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
        #expect(await Self.liveSessions(broker, user.uid) == before + 1)
        // A refresh asks for nothing and keeps the claim.
        let refreshed = await broker.post(
            "/v1/token", ["refreshToken": .string(done.json?["refreshToken"]?.stringValue ?? "")])
        #expect(refreshed.status == 200)
        #expect(try Self.claims(refreshed)["mfa"] == "totp")
    }

    @Test func aUsedCodeIsRefusedAndFiveWrongCodesKillThePendingSignIn() async throws {
        let (broker, clock) = try await Self.start()
        let user = try await Self.enrolled(broker, clock, "wrong@example.com")
        let credential = try Self.pending(await Self.signIn(broker, "wrong@example.com"))
        let before = await Self.liveSessions(broker, user.uid)
        // The enrolment's own code (one step back) has worked once already.
        let used = try Self.code(user.secret, clock, offset: -1)
        var statuses: [String?] = []
        for attempt in 0..<5 {
            let code = attempt == 0 ? used : "000000"
            let answer = await broker.post(
                "/v1/signin/mfa",
                [
                    "mfaPendingCredential": .string(credential), "factorId": .string(user.factorID),
                    "code": .string(code),
                ])
            statuses.append(answer.errorCode)
        }
        #expect(statuses == Array(repeating: "INVALID_MFA_CODE", count: 4) + ["INVALID_MFA_PENDING_CREDENTIAL"])
        let late = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(credential), "factorId": .string(user.factorID),
                "code": .string(try Self.code(user.secret, clock)),
            ])
        #expect(late.status == 401 && late.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
        #expect(await Self.liveSessions(broker, user.uid) == before)
        let refused = await Self.events(broker, .signIn).filter { $0.provider == "mfa" }
        #expect(
            refused.map(\.outcome).sorted()
                == (["INVALID_MFA_CODE"] * 4 + ["INVALID_MFA_PENDING_CREDENTIAL"] * 2).sorted())
        #expect(
            SignInFlowTests.samples(broker, "broker_signins_total")["{provider=\"mfa\",outcome=\"INVALID_MFA_CODE\"}"]
                == 4)
    }

    @Test func aRecoveryCodeWorksOnceAndIsAudited() async throws {
        let (broker, clock) = try await Self.start()
        let user = try await Self.enrolled(broker, clock, "lost@example.com")
        let first = try Self.pending(await Self.signIn(broker, "lost@example.com"))
        let recovered = await broker.post(
            "/v1/signin/mfa",
            ["mfaPendingCredential": .string(first), "recoveryCode": .string(user.recoveryCodes[0].uppercased())])
        #expect(recovered.status == 200)
        #expect(try Self.claims(recovered)["mfa"] == "recovery")
        #expect(await broker.store.recoveryCodesLeft(uid: user.uid) == 9)
        #expect(await Self.events(broker, .mfaRecoveryCodeUsed).count == 1)
        let second = try Self.pending(await Self.signIn(broker, "lost@example.com"))
        let reused = await broker.post(
            "/v1/signin/mfa", ["mfaPendingCredential": .string(second), "recoveryCode": .string(user.recoveryCodes[0])])
        #expect(reused.status == 400 && reused.errorCode == "INVALID_MFA_CODE")
        #expect(await broker.store.recoveryCodesLeft(uid: user.uid) == 9)
        // Both answers at once is a bad request.
        let both = await broker.post(
            "/v1/signin/mfa",
            ["mfaPendingCredential": .string(second), "recoveryCode": "x", "factorId": "f", "code": "123456"])
        #expect(both.status == 400 && both.errorCode == "INVALID_REQUEST")
    }

    @Test func aRightPasswordKeepsTheLockoutCountAndACompletedSecondFactorClearsIt() async throws {
        let (broker, clock) = try await Self.start()
        let user = try await Self.enrolled(broker, clock, "lock@example.com")
        let since = clock.now - AccountService.lockoutWindow
        for _ in 0..<3 { _ = await Self.signIn(broker, "lock@example.com", password: "wrong-one") }
        let held = await Self.signIn(broker, "lock@example.com")
        #expect(held.errorCode == "MFA_REQUIRED")
        #expect(await broker.store.loginFailures(emailKey: "lock@example.com", since: since).count == 4)
        let credential = try Self.pending(held)
        let wrong = await broker.post(
            "/v1/signin/mfa",
            ["mfaPendingCredential": .string(credential), "factorId": .string(user.factorID), "code": "000000"])
        #expect(wrong.errorCode == "INVALID_MFA_CODE")
        #expect(await broker.store.loginFailures(emailKey: "lock@example.com", since: since).count == 5)
        let done = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(credential), "factorId": .string(user.factorID),
                "code": .string(try Self.code(user.secret, clock)),
            ])
        #expect(done.status == 200)
        #expect(await broker.store.loginFailures(emailKey: "lock@example.com", since: since).isEmpty)
    }

    @Test func wrongCodesLockTheAccountOut() async throws {
        let (broker, clock) = try await Self.start()
        let user = try await Self.enrolled(broker, clock, "locked@example.com")
        for _ in 0..<9 { _ = await Self.signIn(broker, "locked@example.com", password: "wrong-one") }
        let held = await Self.signIn(broker, "locked@example.com")  // the tenth counted attempt
        #expect(held.errorCode == "MFA_REQUIRED")
        let locked = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(try Self.pending(held)), "factorId": .string(user.factorID),
                "code": .string(try Self.code(user.secret, clock)),
            ])
        #expect(locked.status == 429 && locked.errorCode == "TOO_MANY_ATTEMPTS")
        #expect(
            await Self.events(broker, .signIn).filter { $0.provider == "mfa" }.map(\.outcome) == ["TOO_MANY_ATTEMPTS"])
    }

    @Test func aTakeoverRemovesTheSquattersFactorsAndIsNotAsked() async throws {
        let (broker, clock) = try await Self.start()
        let squatter = try await Self.enrolled(broker, clock, "g-owner@example.com")
        let token = try broker.stubs.idToken(
            "google", claims: ["sub": "g-owner", "email": "g-owner@example.com", "email_verified": true])
        let owner = await broker.post("/v1/signin/google", ["idToken": .string(token)])
        #expect(owner.status == 200)
        #expect(owner.json?["user"]?["uid"]?.stringValue == squatter.uid.rawValue)
        #expect(await broker.store.secondFactors(uid: squatter.uid).isEmpty)
        #expect(await broker.store.recoveryCodesLeft(uid: squatter.uid) == 0)
    }

    /// A reset of a never-verified account removes the squatter's factors in its transaction; a verified
    /// account's reset keeps them (the owner's own), and its sign-in is still asked for one.
    @Test func aResetRemovesANeverVerifiedAccountsFactorsOnly() async throws {
        let (broker, clock) = try await Self.start(mail: true)
        let squatter = try await Self.enrolled(broker, clock, "squatted@example.com")
        let owner = try await Self.enrolled(broker, clock, "owner@example.com")
        _ = try await broker.store.update(id: owner.uid) { $0.emailVerified = true }
        for email in ["squatted@example.com", "owner@example.com"] {
            #expect(await broker.post("/v1/password/reset", ["email": .string(email)]).status == 204)
            let code = try #require(try await Self.resetCodes(broker, to: email).first)
            let confirmed = await broker.post(
                "/v1/oob/confirm", ["oobCode": .string(code), "newPassword": "new-secret-1"])
            #expect(confirmed.status == 200)
        }
        #expect(await broker.store.secondFactors(uid: squatter.uid).isEmpty)
        #expect(await broker.store.recoveryCodesLeft(uid: squatter.uid) == 0)
        #expect(await Self.signIn(broker, "squatted@example.com", password: "new-secret-1").status == 200)
        #expect(await broker.store.secondFactors(uid: owner.uid).count == 1)
        let held = await Self.signIn(broker, "owner@example.com", password: "new-secret-1")
        #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
    }

    @Test func removalAndNewRecoveryCodesNeedARecentSignIn() async throws {
        let (broker, clock) = try await Self.start()
        let user = try await Self.enrolled(broker, clock, "remove@example.com")
        clock.advance(by: SessionService.recentSignInWindow)
        let stale = await broker.request(
            "DELETE", "/v1/me/mfa/\(user.factorID)", headers: Self.bearer(user.session))
        #expect(stale.status == 401 && stale.errorCode == "RECENT_SIGN_IN_REQUIRED")
        let staleCodes = await broker.post("/v1/me/mfa/recovery-codes", [:], headers: Self.bearer(user.session))
        #expect(staleCodes.status == 401 && staleCodes.errorCode == "RECENT_SIGN_IN_REQUIRED")
        #expect(await broker.store.secondFactors(uid: user.uid).count == 1)

        let fresh = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(try Self.pending(await Self.signIn(broker, "remove@example.com"))),
                "factorId": .string(user.factorID), "code": .string(try Self.code(user.secret, clock)),
            ])
        #expect(fresh.status == 200)
        let renewed = await broker.post("/v1/me/mfa/recovery-codes", [:], headers: Self.bearer(fresh))
        #expect(renewed.status == 200)
        let codes = try #require(renewed.json?["recoveryCodes"]?.arrayValue).compactMap(\.stringValue)
        #expect(codes.count == 10 && Set(codes).isDisjoint(with: user.recoveryCodes))
        #expect(await Self.events(broker, .mfaRecoveryCodes).count == 1)
        let unknown = await broker.request("DELETE", "/v1/me/mfa/nope", headers: Self.bearer(fresh))
        #expect(unknown.status == 404 && unknown.errorCode == "NOT_FOUND")
        let removed = await broker.request("DELETE", "/v1/me/mfa/\(user.factorID)", headers: Self.bearer(fresh))
        #expect(removed.status == 204)
        #expect(await broker.store.secondFactors(uid: user.uid).isEmpty)
        #expect(await broker.store.recoveryCodesLeft(uid: user.uid) == 0)
        #expect(await Self.events(broker, .mfaUnenroll).count == 1)
        // Without a factor the password signs in again.
        #expect(await Self.signIn(broker, "remove@example.com").status == 200)
    }

    @Test func anAdministratorSeesTheFactorsAndRemovesOneAudited() async throws {
        let (broker, clock) = try await Self.start()
        let user = try await Self.enrolled(broker, clock, "admin-view@example.com")
        let admin = ["Authorization": "Bearer " + Self.adminToken]
        let view = await broker.get("/admin/v1/users/\(user.uid.rawValue)", headers: admin)
        #expect(view.status == 200)
        let factors = try #require(view.json?["mfaFactors"]?.arrayValue)
        #expect(factors.map { $0["factorId"]?.stringValue } == [user.factorID])
        #expect(view.json?["recoveryCodesLeft"] == 10)
        #expect(!String(decoding: view.body, as: UTF8.self).contains(user.secret))
        let unknown = await broker.request("DELETE", "/admin/v1/users/\(user.uid.rawValue)/mfa/nope", headers: admin)
        #expect(unknown.status == 404 && unknown.errorCode == "NOT_FOUND")
        let removed = await broker.request(
            "DELETE", "/admin/v1/users/\(user.uid.rawValue)/mfa/\(user.factorID)", headers: admin)
        #expect(removed.status == 204)
        #expect(await broker.store.secondFactors(uid: user.uid).isEmpty)
        #expect(await broker.store.recoveryCodesLeft(uid: user.uid) == 0)
        let events = await Self.events(broker, .mfaUnenroll)
        #expect(events.count == 1 && events.first?.actor == .admin && events.first?.uid == user.uid)
    }

    @Test func withoutMfaTheRoutesAreNotFound() async throws {
        let (broker, _) = try await Self.start(enabled: false)
        let session = await broker.post("/v1/signup", ["email": "off@example.com", "password": "secret-1"])
        let start = await broker.post("/v1/me/mfa/totp", [:], headers: Self.bearer(session))
        #expect(start.status == 404 && start.errorCode == "NOT_FOUND")
        let finish = await broker.post("/v1/signin/mfa", ["mfaPendingCredential": "x", "recoveryCode": "y"])
        #expect(finish.status == 404 && finish.errorCode == "NOT_FOUND")
    }
}

extension Array {
    /// `lhs` repeated `count` times.
    fileprivate static func * (lhs: Self, count: Int) -> Self { (0..<count).flatMap { _ in lhs } }
}
