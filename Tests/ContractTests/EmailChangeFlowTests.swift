import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 9's email change over HTTP and real SMTP (aiosmtpd): the link mailed to the new address,
/// confirmed through the broker's page, the recovery link mailed to the old address, and that one followed too.
@Suite("Email change over SMTP (section 9)")
struct EmailChangeFlowTests {
    /// The page at `link`, then its form posted with the page's CSRF cookie: the answer.
    static func follow(_ link: String, on harness: BrokerHarness) async throws -> TestResponse {
        let path = String(link.dropFirst(harness.baseURL.count))
        let page = try await harness.get(path)
        #expect(page.status == 200)
        let cookie = try #require(page.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let csrf = try #require(cookie.split(separator: "=", maxSplits: 1).last.map(String.init))
        let query = try #require(URLComponents(string: link)?.queryItems)
        let mode = try #require(query.first { $0.name == "mode" }?.value)
        let code = try #require(query.first { $0.name == "oobCode" }?.value)
        let form = "mode=\(mode)&oobCode=\(code)&csrfToken=\(csrf)"
        return try await harness.request(
            "POST", "/auth/action", body: Array(form.utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie])
    }

    @Test(
        .enabled(if: SMTPTestServer.isAvailable, "python3-aiosmtpd is not installed (scripts/setup-debian installs it)")
    )
    func aChangeMailedOverSMTPIsConfirmedAndTheOldAddressPutsItBack() async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        let url = "smtp://127.0.0.1:\(smtp.port)"
        let (harness, _, worker) = try await EmailFlowCompletionTests.start(
            smtpURL: url, mailer: CurlSMTPMailer(url: url, password: nil, timeout: 10))
        defer { Task { await harness.stop() } }
        let signUp = try await EmailFlowCompletionTests.signUp(harness, "una@example.com")
        let idToken = try #require(signUp["idToken"]?.stringValue)
        let uid = AccountID(try #require(signUp["user"]?["uid"]?.stringValue))
        let asked = try await harness.post(
            "/v1/me/email", ["newEmail": "vic@example.com"], headers: ["Authorization": "Bearer \(idToken)"])
        #expect(asked.status == 204)
        #expect(try await worker.runOnce() == 1)
        let first = try smtp.messages()
        #expect(first.count == 1)
        let change = CaughtMail(raw: try #require(first.first))
        #expect(change.headers["to"] == "vic@example.com")
        let changeLink = try #require(change.actionLink)
        #expect(changeLink.hasPrefix(harness.baseURL + "/auth/action?mode=verifyAndChangeEmail&oobCode="))
        #expect(try await harness.store.account(id: uid)?.email == "una@example.com")

        let changed = try await Self.follow(changeLink, on: harness)
        #expect(changed.status == 200)
        #expect(String(decoding: changed.body, as: UTF8.self).contains("Your email address has been changed."))
        let account = try #require(try await harness.store.account(id: uid))
        #expect(account.email == "vic@example.com" && account.emailVerified)
        #expect(try await harness.get("/v1/me", headers: ["Authorization": "Bearer \(idToken)"]).status == 401)
        // The sessions beyond the broker's end too (a service account is configured).
        let revocations = try await harness.store.outboxJobs(uid: uid, limit: 10).filter { $0.kind == .firebaseRevoke }
        #expect(revocations.count == 1)

        // The old address gets the recovery link over SMTP.
        #expect(try await worker.runOnce() >= 1)
        let mails = try smtp.messages()
        let recovery = try #require(mails.map(CaughtMail.init(raw:)).first { $0.headers["to"] == "una@example.com" })
        let recoveryLink = try #require(recovery.actionLink)
        #expect(recoveryLink.hasPrefix(harness.baseURL + "/auth/action?mode=recoverEmail&oobCode="))
        let restored = try await Self.follow(recoveryLink, on: harness)
        #expect(restored.status == 200)
        #expect(String(decoding: restored.body, as: UTF8.self).contains("restored"))
        #expect(try await harness.store.account(id: uid)?.email == "una@example.com")
        let signIn = try await harness.post(
            "/v1/signin/password", ["email": "una@example.com", "password": "first-password"])
        #expect(signIn.status == 200)
        let events = try await harness.store.auditEvents(uid: uid, before: nil, limit: 50).map(\.action)
        #expect(events.contains(.emailChange) && events.contains(.emailRecover))
    }
}
