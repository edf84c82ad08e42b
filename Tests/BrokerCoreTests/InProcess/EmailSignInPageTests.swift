import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// An email sign-in code on the native API's email pages: the `/auth/action` page only points at the app, and
/// neither the page's form nor `POST /v1/oob/confirm` accepts the code (it stays unused for the app's sign-in).
@Suite struct EmailSignInPageTests {
    static func start() async throws -> (InProcessBroker, String) {
        let broker = try await InProcessBroker.start { document in
            guard case .object(var members) = document else { return document }
            members["mail"] = ["smtpUrl": "smtp://127.0.0.1:2525", "from": "no-reply@example.com"]
            return .object(members)
        }
        let link = try await ActionCodeService(
            accounts: broker.store, codes: broker.store, passwords: SaltedDigestPasswordHasher(), clock: broker.services.clock,
            issuer: broker.services.config.issuer, revocation: .brokerOnly
        ).issueLink(.signIn, email: "page@example.com", continueURL: nil, requestID: "t")
        return (broker, link.oobCode)
    }

    @Test func thePageOfASignInLinkHasNoFormAndSetsNoCookie() async throws {
        let (broker, code) = try await Self.start()
        let page = await broker.get("/auth/action?mode=signIn&oobCode=\(code)")
        #expect(page.status == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("Open this link"))
        #expect(!html.contains("<form"))
        #expect(page.headers["set-cookie"] == nil)
    }

    @Test func neitherTheFormNorTheConfirmationUsesASignInCode() async throws {
        let (broker, code) = try await Self.start()
        let confirm = await broker.post("/v1/oob/confirm", ["oobCode": .string(code)])
        #expect(confirm.status == 400)
        #expect(confirm.errorCode == "INVALID_OOB_CODE")
        let form = Array("mode=signIn&oobCode=\(code)&csrfToken=t".utf8)
        let posted = await broker.request(
            "POST", "/auth/action", body: form,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": "broker_csrf=t"])
        #expect(posted.status == 400)
        #expect(await broker.store.account(email: "page@example.com") == nil)
        let info = try await ActionCodeService(
            accounts: broker.store, codes: broker.store, passwords: SaltedDigestPasswordHasher(),
            clock: broker.services.clock, issuer: broker.services.config.issuer, revocation: .brokerOnly
        ).inspect(code: code)
        #expect(info.action == .signIn)
    }
}
