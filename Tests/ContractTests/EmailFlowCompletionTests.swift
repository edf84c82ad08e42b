import BrokerCore
import BrokerFirebase
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The rest of issue 13 over HTTP: a verification mailed over real SMTP and confirmed through the page, the
/// limit counting both kinds of mail, sign-up sending none, Firebase sessions ended with the broker's, and
/// no code in the audit log.
@Suite("Email flows: verification over SMTP, the shared limit, Firebase, the audit log")
struct EmailFlowCompletionTests {
    /// A broker with a Firebase service account and `mail` pointing at `smtpURL`, plus an outbox worker
    /// delivering through `mailer`.
    static func start(
        smtpURL: String = "smtp://127.0.0.1:1", mailer: any MailSending
    ) async throws
        -> (harness: BrokerHarness, clock: ManualClock, worker: OutboxWorker)
    {
        let clock = ManualClock(Date())
        let harness = try await BrokerHarness.start(serviceAccount: true, clock: clock) { config in
            ConfigEdit.set(config, ["mail"], ["smtpUrl": .string(smtpURL), "from": "Demo <no-reply@example.com>"])
        }
        let worker = OutboxWorker(store: harness.store, clock: clock)
        await worker.register(.mail, MailOutboxHandler(mailer: mailer, from: "Demo <no-reply@example.com>"))
        return (harness, clock, worker)
    }

    static func signUp(_ harness: BrokerHarness, _ email: String) async throws -> JSONValue {
        let response = try await harness.post("/v1/signup", ["email": .string(email), "password": "first-password"])
        #expect(response.status == 201)
        return try #require(response.json)
    }

    static func code(in link: String) throws -> String {
        try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "oobCode" }?.value)
    }

    @Test(.enabled(if: SMTPTestServer.isAvailable, "python3-aiosmtpd is not installed (scripts/setup-debian installs it)"))
    func aVerificationMailedOverSMTPIsConfirmedThroughThePage() async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        let url = "smtp://127.0.0.1:\(smtp.port)"
        let (harness, _, worker) = try await Self.start(
            smtpURL: url, mailer: CurlSMTPMailer(url: url, password: nil, timeout: 10))
        defer { Task { await harness.stop() } }
        let signUp = try await Self.signUp(harness, "vera@example.com")
        #expect(try await harness.count("outbox_jobs") == 0)  // sign-up sends no mail
        let idToken = try #require(signUp["idToken"]?.stringValue)
        let asked = try await harness.post(
            "/v1/email/verify", [:], headers: ["Authorization": "Bearer \(idToken)", "Accept-Language": "ko"])
        #expect(asked.status == 204)
        #expect(try await worker.runOnce() == 1)

        let mails = try smtp.messages()
        #expect(mails.count == 1)
        let mail = CaughtMail(raw: try #require(mails.first))
        #expect(mail.headers["to"] == "vera@example.com")
        #expect(mail.headers["subject"]?.hasPrefix("=?UTF-8?B?") == true)  // the Korean subject, RFC 2047
        let link = try #require(mail.actionLink)
        #expect(link.hasPrefix(harness.baseURL + "/auth/action?mode=verifyEmail&oobCode="))

        let path = String(link.dropFirst(harness.baseURL.count))
        let page = try await harness.get(path)
        #expect(page.status == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        // The account was made with a password and its email never verified: the page asks for that password (or a
        // new one instead, contract section 9), so it submits the password its maker chose.
        #expect(html.contains("Verify email") && html.contains("name=\"password\"") && html.contains("name=\"newPassword\""))
        #expect(try await harness.store.account(email: "vera@example.com")?.emailVerified == false)  // the GET did nothing
        let cookie = try #require(page.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let csrf = try #require(cookie.split(separator: "=", maxSplits: 1).last.map(String.init))
        let form = "mode=verifyEmail&oobCode=\(try Self.code(in: link))&csrfToken=\(csrf)"
        let bare = try await harness.request(
            "POST", "/auth/action", body: Array(form.utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie])
        #expect(bare.status == 400)
        #expect(try await harness.store.account(email: "vera@example.com")?.emailVerified == false)
        let posted = try await harness.request(
            "POST", "/auth/action", body: Array((form + "&password=first-password").utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie])
        #expect(posted.status == 200)
        #expect(String(decoding: posted.body, as: UTF8.self).contains("Your email address has been verified."))
        #expect(try await harness.store.account(email: "vera@example.com")?.emailVerified == true)
        // A verification of an account with nothing linked ends no session, the broker's or Firebase's.
        #expect(try await harness.get("/v1/me", headers: ["Authorization": "Bearer \(idToken)"]).status == 200)
        #expect(try await harness.store.outboxJobs(uid: nil, limit: 10).filter { $0.kind == .firebaseRevoke }.isEmpty)
    }

    /// Verification and reset mails share the five an hour of one address.
    @Test func theLimitCountsVerificationsAndResetsTogether() async throws {
        let (harness, _, _) = try await Self.start(mailer: CapturingMailer())
        defer { Task { await harness.stop() } }
        let signUp = try await Self.signUp(harness, "lim@example.com")
        let idToken = try #require(signUp["idToken"]?.stringValue)
        for _ in 0..<3 {
            let verify = try await harness.post(
                "/v1/email/verify", [:], headers: ["Authorization": "Bearer \(idToken)"])
            #expect(verify.status == 204)
        }
        for _ in 0..<2 {
            #expect(try await harness.post("/v1/password/reset", ["email": "LIM@example.com"]).status == 204)
        }
        let verify = try await harness.post("/v1/email/verify", [:], headers: ["Authorization": "Bearer \(idToken)"])
        #expect(verify.status == 429 && verify.errorCode == "TOO_MANY_ATTEMPTS")
        let reset = try await harness.post("/v1/password/reset", ["email": "lim@example.com"])
        #expect(reset.status == 429 && reset.errorCode == "TOO_MANY_ATTEMPTS")
        #expect(try await harness.count("outbox_jobs") == 5)
        // Three verification codes, and the newer reset code, which retired the older one.
        #expect(try await harness.count("oob_codes") == 4)
    }

    /// A reset ends the uid's Firebase sessions through the outbox, and no audit event holds the code.
    @Test func aResetQueuesTheFirebaseRevocationAndTheAuditLogHoldsNoCode() async throws {
        let mailer = CapturingMailer()
        let (harness, _, worker) = try await Self.start(mailer: mailer)
        defer { Task { await harness.stop() } }
        let signUp = try await Self.signUp(harness, "fb@example.com")
        let uid = AccountID(try #require(signUp["user"]?["uid"]?.stringValue))
        #expect(try await harness.post("/v1/password/reset", ["email": "fb@example.com"]).status == 204)
        try await worker.runOnce()
        let mail = try #require(mailer.messages.last)
        let link = try #require(mail.text.split(whereSeparator: \.isWhitespace).first { $0.contains("oobCode=") })
        let code = try Self.code(in: String(link))
        let confirmed = try await harness.post(
            "/v1/oob/confirm", ["oobCode": .string(code), "newPassword": "second-password"])
        #expect(confirmed.status == 200)

        let revocations = try await harness.store.outboxJobs(uid: uid, limit: 10).filter { $0.kind == .firebaseRevoke }
        #expect(revocations.count == 1)
        #expect(revocations.first.flatMap { JSONValue.parse($0.payload)?["localId"]?.stringValue } == uid.rawValue)

        let events = try await harness.store.auditEvents(uid: uid, before: nil, limit: 50)
        #expect(Set(events.map(\.action.rawValue)).isSuperset(of: ["mail_queued", "outbox_delivered", "password_reset"]))
        #expect(!"\(events)".contains(code))
        let rows = try await harness.store.database.read { try $0.query("SELECT * FROM audit_events", []) }
        #expect(!rows.isEmpty && !"\(rows)".contains(code))
    }

    /// On a never-verified account, a verification removes the linked identities (a squatter's) and ends the
    /// account's sessions, the broker's and Firebase's, as a takeover does.
    @Test func aVerificationOnANeverVerifiedAccountAlsoEndsItsFirebaseSessions() async throws {
        let mailer = CapturingMailer()
        let (harness, clock, worker) = try await Self.start(mailer: mailer)
        defer { Task { await harness.stop() } }
        let signUp = try await Self.signUp(harness, "sq@example.com")
        let idToken = try #require(signUp["idToken"]?.stringValue)
        let uid = AccountID(try #require(signUp["user"]?["uid"]?.stringValue))
        let google = try harness.stubs.idToken("google", claims: ["sub": "g-sq", "email": "other@example.com"])
        let linked = try await harness.post(
            "/v1/me/identities/google", ["idToken": .string(google)], headers: ["Authorization": "Bearer \(idToken)"])
        #expect(linked.status == 200)
        clock.advance(by: 2)
        let asked = try await harness.post("/v1/email/verify", [:], headers: ["Authorization": "Bearer \(idToken)"])
        #expect(asked.status == 204)
        try await worker.runOnce()
        let mail = try #require(mailer.messages.last)
        let link = try #require(mail.text.split(whereSeparator: \.isWhitespace).first { $0.contains("oobCode=") })
        let confirmed = try await harness.post("/v1/oob/confirm", ["oobCode": .string(try Self.code(in: String(link)))])
        #expect(confirmed.json == ["email": "sq@example.com", "action": "VERIFY_EMAIL"])
        let account = try #require(try await harness.store.account(id: uid))
        #expect(account.identities.isEmpty && account.emailVerified)
        #expect(try await harness.get("/v1/me", headers: ["Authorization": "Bearer \(idToken)"]).status == 401)
        let revocations = try await harness.store.outboxJobs(uid: uid, limit: 10).filter { $0.kind == .firebaseRevoke }
        #expect(revocations.count == 1)
    }
}
