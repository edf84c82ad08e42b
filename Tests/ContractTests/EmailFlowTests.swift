import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A mailer that keeps what it is given; for flows that need the code, not a server.
final class CapturingMailer: MailSending, @unchecked Sendable {
    private let lock = NSLock()
    private var sent: [MailMessage] = []
    var messages: [MailMessage] { lock.withLock { sent } }
    func send(_ message: MailMessage) async throws { lock.withLock { sent.append(message) } }
}

/// Contract section 9 over HTTP: both flows, reuse, expiry, the limit, unknown emails, the page's CSRF and
/// continueUrl rules, and 501 without mail config. Mails are delivered by an outbox worker the test drives.
@Suite("Email flows (section 9)")
struct EmailFlowTests {
    struct Fixture {
        let harness: BrokerHarness
        let clock: ManualClock
        let mailer = CapturingMailer()
        let worker: OutboxWorker

        static func start(mail: JSONValue? = nil) async throws -> Fixture {
            let clock = ManualClock(Date())
            let section: JSONValue =
                mail ?? [
                    "smtpUrl": "smtp://127.0.0.1:1", "from": "Demo <no-reply@example.com>", "appName": "Demo App",
                    "allowedContinueUrls": ["https://app.example.com/done"],
                ]
            let harness = try await BrokerHarness.start(clock: clock) { config in
                guard case .object(var members) = config else { return config }
                members["mail"] = section
                return .object(members)
            }
            let worker = OutboxWorker(store: harness.store, clock: clock)
            let fixture = Fixture(harness: harness, clock: clock, worker: worker)
            await worker.register(.mail, MailOutboxHandler(mailer: fixture.mailer, from: "Demo <no-reply@example.com>"))
            return fixture
        }

        func signUp(_ email: String, password: String = "first-password") async throws -> JSONValue {
            let response = try await harness.post("/v1/signup", ["email": .string(email), "password": .string(password)])
            #expect(response.status == 201)
            return try #require(response.json)
        }

        func signIn(_ email: String, _ password: String) async throws -> TestResponse {
            try await harness.post("/v1/signin/password", ["email": .string(email), "password": .string(password)])
        }

        /// Delivers what is due and returns the newest mail's code and link.
        func deliverAndReadCode() async throws -> (code: String, link: String, mail: MailMessage) {
            try await worker.runOnce()
            let mail = try #require(mailer.messages.last)
            let link = try #require(
                mail.text.split(whereSeparator: \.isWhitespace).first { $0.contains("/auth/action?") }.map(String.init))
            let code = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "oobCode" }?.value)
            return (code, link, mail)
        }
    }

    /// Issue 25, finding 9: once the outbox has delivered a reset mail, neither the SQLite database file nor its WAL
    /// holds the code or its link (no `BROKER_ENCRYPTION_KEY`): `secure_delete` zeroes the emptied payload, and the
    /// WAL, whose older frames still hold it, is copied back and emptied. Before delivery both files are read the
    /// same way and do hold the code, so the scan can see it.
    @Test func aDeliveredMailsCodeIsLeftInNeitherTheDatabaseFileNorItsWAL() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.harness.stop() } }
        _ = try await fixture.signUp("files@example.com")
        #expect(try await fixture.harness.post("/v1/password/reset", ["email": "files@example.com"]).status == 204)
        let job = try #require(try await fixture.harness.store.outboxJobs(uid: nil, limit: 10).first { $0.secret })
        let payload = job.payload
        let marker = Array("oobCode=".utf8)
        let offset = try #require(
            (0...(payload.count - marker.count)).first { Array(payload[$0..<$0 + marker.count]) == marker }) + marker.count
        let length = payload[offset...].prefix { byte in
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (48...57).contains(byte) || (65...90).contains(byte)
                || (97...122).contains(byte)
        }.count
        #expect(length >= 20)
        let code = String(decoding: payload[offset..<offset + length], as: UTF8.self)
        // The payload is stored as base64: the whole groups of four characters that encode only the code's bytes.
        let encoded = Array(Base64.encode(payload).utf8)
        let codeInBase64 = String(decoding: encoded[((offset + 2) / 3 * 4)..<((offset + length) / 3 * 4)], as: UTF8.self)
        let database = fixture.harness.directory.appendingPathComponent("broker.sqlite").path
        let readable = { (needles: [String]) -> [String] in
            let files = [database, database + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
            return needles.filter { needle in files.contains { $0.range(of: Data(needle.utf8)) != nil } }
        }
        // The scan sees the code while the mail waits.
        #expect(readable([codeInBase64]) == [codeInBase64])

        let (mailed, link, _) = try await fixture.deliverAndReadCode()
        #expect(mailed == code)
        #expect(try await fixture.harness.store.outboxJob(id: job.id)?.payload.isEmpty == true)
        let needles = [code, link, codeInBase64]
        var left = needles
        for _ in 0..<200 where !left.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            left = readable(needles)
        }
        #expect(left.isEmpty, "still readable in \(database) or its WAL after delivery")
    }

    /// A mail's language (contract section 9): the request's `Accept-Language` when the broker has it (Japanese here),
    /// else `mail.defaultLanguage`; the link works the same in every language.
    @Test func theMailSpeaksTheRequestsLanguageElseTheDefault() async throws {
        let fixture = try await Fixture.start(mail: [
            "smtpUrl": "smtp://127.0.0.1:1", "from": "Demo <no-reply@example.com>", "appName": "Demo App",
            "defaultLanguage": "ko",
        ])
        defer { Task { await fixture.harness.stop() } }
        _ = try await fixture.signUp("yuki@example.jp")
        let japanese = try await fixture.harness.post(
            "/v1/password/reset", ["email": "yuki@example.jp"], headers: ["Accept-Language": "ja-JP,ja;q=0.9,en;q=0.5"])
        #expect(japanese.status == 204)
        let (code, _, mail) = try await fixture.deliverAndReadCode()
        #expect(mail.subject == "Demo App のパスワード再設定")
        #expect(mail.text.contains("パスワードは変更されません") && mail.html.contains("<html lang=\"ja\">"))

        // The Japanese mail's code works as any other.
        let confirmed = try await fixture.harness.post(
            "/v1/oob/confirm", ["oobCode": .string(code), "newPassword": "new-password-1"])
        #expect(confirmed.status == 200)
        #expect(try await fixture.signIn("yuki@example.jp", "new-password-1").status == 200)

        // No language the broker has: the default, Korean here.
        let other = try await fixture.harness.post(
            "/v1/password/reset", ["email": "yuki@example.jp"], headers: ["Accept-Language": "de-DE, fr;q=0.8"])
        #expect(other.status == 204)
        let (_, _, korean) = try await fixture.deliverAndReadCode()
        #expect(korean.subject == "Demo App 비밀번호 재설정")
        #expect(fixture.mailer.messages.count == 2)
    }

    @Test func aPasswordResetThroughThePageChangesThePasswordAndRetiresSessions() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.harness.stop() } }
        let signUp = try await fixture.signUp("alice@example.com")
        let oldRefresh = try #require(signUp["refreshToken"]?.stringValue)
        let idToken = try #require(signUp["idToken"]?.stringValue)
        // Revocation is exact: the reset comes in the same second as the sign-up (the clock stands still).

        let asked = try await fixture.harness.post(
            "/v1/password/reset", ["email": "Alice@Example.com", "continueUrl": "https://app.example.com/done/ok"],
            headers: ["Accept-Language": "ko-KR,ko;q=0.9"])
        #expect(asked.status == 204)
        let (code, link, mail) = try await fixture.deliverAndReadCode()
        #expect(mail.to == "alice@example.com")
        #expect(mail.subject == "Demo App 비밀번호 재설정")
        #expect(mail.text.contains("무시"))
        #expect(link.hasPrefix(fixture.harness.baseURL + "/auth/action?mode=resetPassword&oobCode="))
        #expect(code.count == 43 && !code.contains("="))
        // Only the hash is stored.
        #expect(try await fixture.harness.count("oob_codes") == 1)
        let stored = try await fixture.harness.store.database.read { try $0.query("SELECT code_hash FROM oob_codes", []) }
        #expect(stored.first?.text("code_hash") != code)

        // The page's GET only shows the form: twice, and the code still works after.
        let path = String(link.dropFirst(fixture.harness.baseURL.count))
        _ = try await fixture.harness.get(path)
        let page = try await fixture.harness.get(path)
        #expect(page.status == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("name=\"newPassword\"") && !html.contains("<script"))
        #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        let cookie = try #require(page.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let csrf = try #require(cookie.split(separator: "=", maxSplits: 1).last.map(String.init))

        // A POST without the cookie (a forged form) is refused and changes nothing.
        let formBody = "mode=resetPassword&oobCode=\(code)&csrfToken=\(csrf)&newPassword=second-password"
        let forged = try await fixture.harness.request(
            "POST", "/auth/action", body: Array(formBody.utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(forged.status == 403)
        #expect(try await fixture.signIn("alice@example.com", "first-password").status == 200)

        let posted = try await fixture.harness.request(
            "POST", "/auth/action", body: Array(formBody.utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie])
        #expect(posted.status == 303)
        #expect(posted.headers["location"] == "https://app.example.com/done/ok")

        #expect(try await fixture.signIn("alice@example.com", "second-password").status == 200)
        #expect(try await fixture.signIn("alice@example.com", "first-password").errorCode == "INVALID_LOGIN_CREDENTIALS")
        let refreshed = try await fixture.harness.post("/v1/token", ["refreshToken": .string(oldRefresh)])
        #expect(refreshed.errorCode == "INVALID_REFRESH_TOKEN")
        let me = try await fixture.harness.get("/v1/me", headers: ["Authorization": "Bearer \(idToken)"])
        #expect(me.status == 401)
        let account = try #require(try await fixture.harness.store.account(email: "alice@example.com"))
        #expect(account.emailVerified)

        // The code works once.
        let reused = try await fixture.harness.post("/v1/oob/confirm", ["oobCode": .string(code), "newPassword": "third-password"])
        #expect(reused.status == 400 && reused.errorCode == "INVALID_OOB_CODE")
        #expect(try await fixture.signIn("alice@example.com", "third-password").status == 400)
        let actions = try await fixture.harness.store.auditEvents(uid: account.id, before: nil, limit: 20).map(\.action.rawValue)
        #expect(actions.contains("mail_queued") && actions.contains("password_reset") && actions.contains("outbox_delivered"))
    }

    @Test func aVerificationThroughTheJSONEndpointMarksTheEmailVerifiedOnce() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.harness.stop() } }
        let signUp = try await fixture.signUp("bob@example.com")
        let idToken = try #require(signUp["idToken"]?.stringValue)
        let unauthenticated = try await fixture.harness.post("/v1/email/verify", [:])
        #expect(unauthenticated.status == 401)
        let asked = try await fixture.harness.post("/v1/email/verify", [:], headers: ["Authorization": "Bearer \(idToken)"])
        #expect(asked.status == 204)
        let (code, _, mail) = try await fixture.deliverAndReadCode()
        #expect(mail.subject == "Verify your email for Demo App")
        #expect(try await fixture.harness.store.account(email: "bob@example.com")?.emailVerified == false)

        let confirmed = try await fixture.harness.post("/v1/oob/confirm", ["oobCode": .string(code)])
        #expect(confirmed.status == 200)
        #expect(confirmed.json == ["email": "bob@example.com", "action": "VERIFY_EMAIL"])
        #expect(try await fixture.harness.store.account(email: "bob@example.com")?.emailVerified == true)
        let again = try await fixture.harness.post("/v1/oob/confirm", ["oobCode": .string(code)])
        #expect(again.errorCode == "INVALID_OOB_CODE")
        let bad = try await fixture.harness.post("/v1/oob/confirm", ["oobCode": "not-a-code"])
        #expect(bad.errorCode == "INVALID_OOB_CODE")
        // A verification still works on the account's own session (nothing was revoked).
        #expect(try await fixture.harness.get("/v1/me", headers: ["Authorization": "Bearer \(idToken)"]).status == 200)
    }

    @Test func anExpiredCodeIsRefusedAndChangesNothing() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.harness.stop() } }
        _ = try await fixture.signUp("carol@example.com")
        #expect(try await fixture.harness.post("/v1/password/reset", ["email": "carol@example.com"]).status == 204)
        let (code, _, _) = try await fixture.deliverAndReadCode()
        fixture.clock.advance(by: 3601)
        let late = try await fixture.harness.post("/v1/oob/confirm", ["oobCode": .string(code), "newPassword": "second-password"])
        #expect(late.status == 400 && late.errorCode == "INVALID_OOB_CODE")
        #expect(try await fixture.signIn("carol@example.com", "first-password").status == 200)
        #expect(try await fixture.signIn("carol@example.com", "second-password").status == 400)
    }

    @Test func unknownEmailsGetTheSameAnswerAndTheLimitCountsThem() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.harness.stop() } }
        _ = try await fixture.signUp("dave@example.com")
        let unknown = try await fixture.harness.post("/v1/password/reset", ["email": "nobody@example.com"])
        #expect(unknown.status == 204)
        #expect(try await fixture.harness.count("outbox_jobs") == 0)
        #expect(try await fixture.harness.count("oob_codes") == 0)

        for index in 0..<5 {
            let address = index.isMultiple(of: 2) ? "dave@example.com" : "DAVE@example.com"
            #expect(try await fixture.harness.post("/v1/password/reset", ["email": .string(address)]).status == 204)
        }
        let sixth = try await fixture.harness.post("/v1/password/reset", ["email": "Dave@Example.com"])
        #expect(sixth.status == 429 && sixth.errorCode == "TOO_MANY_ATTEMPTS")
        #expect(try await fixture.harness.count("outbox_jobs") == 5)
        // Each reset code retired the one before it: the newest alone is kept.
        #expect(try await fixture.harness.count("oob_codes") == 1)
        for _ in 0..<4 { _ = try await fixture.harness.post("/v1/password/reset", ["email": "nobody@example.com"]) }
        #expect(try await fixture.harness.post("/v1/password/reset", ["email": "nobody@example.com"]).status == 429)
        fixture.clock.advance(by: 3601)
        #expect(try await fixture.harness.post("/v1/password/reset", ["email": "dave@example.com"]).status == 204)
    }

    @Test func aContinueURLOutsideTheAllowListIsRefusedAndStoresNothing() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.harness.stop() } }
        _ = try await fixture.signUp("erin@example.com")
        for url in ["https://evil.example.com/done", "https://app.example.com/elsewhere", "javascript:alert(1)"] {
            let refused = try await fixture.harness.post(
                "/v1/password/reset", ["email": "erin@example.com", "continueUrl": .string(url)])
            #expect(refused.status == 400 && refused.errorCode == "INVALID_REQUEST")
        }
        let typo = try await fixture.harness.post("/v1/password/reset", ["email": "erin@example.com", "continueURL": "x"])
        #expect(typo.errorCode == "INVALID_REQUEST")
        #expect(try await fixture.harness.count("outbox_jobs") == 0)
        #expect(try await fixture.harness.count("mail_requests") == 0)
    }

    @Test func withoutMailConfigTheEndpointsAnswer501() async throws {
        let harness = try await BrokerHarness.start()
        defer { Task { await harness.stop() } }
        for path in ["/v1/password/reset", "/v1/oob/confirm", "/v1/email/verify"] {
            let response = try await harness.post(path, ["email": "a@example.com", "oobCode": "x"])
            #expect(response.status == 501 && response.errorCode == "MAIL_NOT_CONFIGURED")
        }
        #expect(try await harness.get("/auth/action?mode=resetPassword&oobCode=x").status == 501)
        #expect(try await harness.count("mail_requests") == 0)
    }
}

@Suite("Email flows against a real SMTP server", .enabled(if: SMTPTestServer.isAvailable, "python3-aiosmtpd is not installed (scripts/setup-debian installs it)"))
struct EmailFlowSMTPTests {
    /// The outage: the SMTP server is down when the reset is asked for, comes up later, and exactly
    /// one mail arrives; its code resets the password.
    @Test func aResetAskedForDuringAnSMTPOutageArrivesOnceAfterwards() async throws {
        let port = try SMTPTestServer.freePort()
        let fixture = try await EmailFlowTests.Fixture.start(mail: [
            "smtpUrl": .string("smtp://127.0.0.1:\(port)"), "from": "Demo <no-reply@example.com>",
        ])
        defer { Task { await fixture.harness.stop() } }
        let worker = OutboxWorker(store: fixture.harness.store, clock: fixture.clock)
        await worker.register(
            .mail, MailOutboxHandler(mailer: CurlSMTPMailer(url: "smtp://127.0.0.1:\(port)", password: nil, timeout: 5), from: "Demo <no-reply@example.com>"))
        _ = try await fixture.signUp("frank@example.com")
        #expect(try await fixture.harness.post("/v1/password/reset", ["email": "frank@example.com"]).status == 204)
        #expect(try await worker.runOnce() == 1)  // refused: nothing listens

        let smtp = try await SMTPTestServer(port: port)
        defer { smtp.stop() }
        for _ in 0..<3 {
            fixture.clock.advance(by: 2)
            try await worker.runOnce()
        }
        let mails = try smtp.messages()
        #expect(mails.count == 1)
        let mail = try #require(mails.first)
        #expect(mail.contains("Subject: Reset your password for stub-project"))
        // The text part is quoted-printable: undo soft breaks and `=3D` to read the link.
        let text = mail.replacingOccurrences(of: "=\r\n", with: "").replacingOccurrences(of: "=\n", with: "")
            .replacingOccurrences(of: "=3D", with: "=")
        let code = try #require(
            text.components(separatedBy: "oobCode=").dropFirst().first?.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let confirmed = try await fixture.harness.post(
            "/v1/oob/confirm", ["oobCode": .string(String(code)), "newPassword": "after-the-outage"])
        #expect(confirmed.json == ["email": "frank@example.com", "action": "PASSWORD_RESET"])
        #expect(try await fixture.signIn("frank@example.com", "after-the-outage").status == 200)
    }

    /// On an account whose email was never verified, a reset also removes the identities linked to it (a
    /// squatter's), as a takeover does.
    @Test func aResetOnANeverVerifiedAccountRemovesItsOtherIdentities() async throws {
        let fixture = try await EmailFlowTests.Fixture.start()
        defer { Task { await fixture.harness.stop() } }
        let signUp = try await fixture.signUp("grace@example.com")
        let idToken = try #require(signUp["idToken"]?.stringValue)
        let google = try fixture.harness.stubs.idToken("google", claims: ["sub": "g-squatter", "email": "squatter@example.com"])
        let linked = try await fixture.harness.post(
            "/v1/me/identities/google", ["idToken": .string(google)], headers: ["Authorization": "Bearer \(idToken)"])
        #expect(linked.status == 200)
        #expect(try await fixture.harness.store.account(provider: ProviderID("google"), subject: "g-squatter") != nil)

        fixture.clock.advance(by: 2)
        #expect(try await fixture.harness.post("/v1/password/reset", ["email": "grace@example.com"]).status == 204)
        let (code, _, _) = try await fixture.deliverAndReadCode()
        let confirmed = try await fixture.harness.post("/v1/oob/confirm", ["oobCode": .string(code), "newPassword": "owner-password"])
        #expect(confirmed.status == 200)
        let account = try #require(try await fixture.harness.store.account(email: "grace@example.com"))
        #expect(account.identities.isEmpty && account.emailVerified)
        #expect(try await fixture.harness.store.account(provider: ProviderID("google"), subject: "g-squatter") == nil)
    }
}
