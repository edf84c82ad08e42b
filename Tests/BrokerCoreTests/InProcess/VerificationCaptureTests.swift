import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Issue 25 finding 1, end to end through the broker's own page: a squatter signs up with the victim's address and
/// their own password, links a provider of their own, and asks for a verification mail, which reaches the victim.
/// The page must not let the victim verify the account for the squatter (contract section 9): it asks for the
/// account's password, or offers a new one instead, which signs the squatter out and removes what they linked.
@Suite struct VerificationCaptureTests {
    static let victim = "victim@example.com"

    static func start() async throws -> InProcessBroker {
        try await InProcessBroker.start(clock: ManualClock(Date())) { document in
            guard case .object(var members) = document else { return document }
            members["mail"] = ["smtpUrl": "smtp://127.0.0.1:2525", "from": "no-reply@example.com"]
            return .object(members)
        }
    }

    static func bearer(_ response: TestResponse) -> [String: String] {
        ["Authorization": "Bearer " + (response.json?["idToken"]?.stringValue ?? "")]
    }

    /// The squatter's session, after their sign-up with the victim's address, a Kakao link of their own and a
    /// verification mail (to the victim); and the mailed code.
    static func squat(_ broker: InProcessBroker) async throws -> (session: TestResponse, uid: AccountID, code: String) {
        let session = await broker.post("/v1/signup", ["email": .string(victim), "password": "squatter-pass"])
        #expect(session.status == 201)
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        let kakao = KakaoStubUser(id: 4_242, email: "squatter@example.net")
        let link = await broker.post(
            "/v1/me/identities/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: kakao))],
            headers: bearer(session))
        #expect(link.status == 200)
        #expect(await broker.post("/v1/email/verify", [:], headers: bearer(session)).status == 204)
        let code = try #require(try await broker.mailedCodes(to: victim).last)
        return (session, uid, code)
    }

    /// The page for `code`, and its CSRF cookie.
    static func open(_ broker: InProcessBroker, _ code: String) async throws -> (html: String, cookie: String) {
        let page = await broker.get("/auth/action?mode=verifyEmail&oobCode=\(code)")
        #expect(page.status == 200)
        let cookie = try #require(page.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        return (String(decoding: page.body, as: UTF8.self), cookie)
    }

    static func submit(_ broker: InProcessBroker, _ code: String, cookie: String, _ extra: String = "") async -> TestResponse {
        let csrf = cookie.split(separator: "=", maxSplits: 1).last.map(String.init) ?? ""
        let form = "mode=verifyEmail&oobCode=\(code)&csrfToken=\(csrf)" + extra
        return await broker.request(
            "POST", "/auth/action", body: Array(form.utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie])
    }

    @Test func theVictimCannotVerifyTheSquattersAccountByPressingVerify() async throws {
        let broker = try await Self.start()
        let (squatter, uid, code) = try await Self.squat(broker)
        let (html, cookie) = try await Self.open(broker, code)
        #expect(html.contains("name=\"password\"") && html.contains("name=\"newPassword\""))

        // Pressing Verify (no password), or guessing one, verifies nothing.
        let pressed = await Self.submit(broker, code, cookie: cookie)
        #expect(pressed.status == 400)
        let guessed = await Self.submit(broker, code, cookie: cookie, "&password=a-guess-1")
        #expect(guessed.status == 400)
        #expect(String(decoding: guessed.body, as: UTF8.self).contains("not this account&#39;s password"))
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.emailVerified == false)
        #expect(account.identities.map(\.provider) == [ProviderID("kakao")])
        // The wrong guess counts toward the account's lockout, as a password sign-in's does.
        #expect(await broker.store.loginFailures(emailKey: Self.victim, since: Date(timeIntervalSince1970: 0)).count == 1)

        // So the victim's verified Google sign-in still takes the account over, as the pre-hijack rule says.
        let google = await broker.post(
            "/v1/signin/google",
            ["idToken": .string(try broker.stubs.idToken(
                "google", claims: ["sub": "g-victim", "email": .string(Self.victim), "email_verified": true]))])
        #expect(google.status == 200)
        #expect(google.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        #expect(await broker.get("/v1/me", headers: Self.bearer(squatter)).status == 401)
        let login = await broker.post("/v1/signin/password", ["email": .string(Self.victim), "password": "squatter-pass"])
        #expect(login.errorCode == "INVALID_LOGIN_CREDENTIALS")
    }

    @Test func theVictimChoosesANewPasswordAndTheSquatterKeepsNothing() async throws {
        let broker = try await Self.start()
        let (squatter, uid, code) = try await Self.squat(broker)
        let (_, cookie) = try await Self.open(broker, code)
        let chosen = await Self.submit(broker, code, cookie: cookie, "&newPassword=victims-own-pass")
        #expect(chosen.status == 200)
        #expect(String(decoding: chosen.body, as: UTF8.self).contains("password has been changed"))

        let account = try #require(await broker.store.account(id: uid))
        #expect(account.emailVerified)
        #expect(account.identities.isEmpty)
        // The squatter's password, ID token and refresh token are all dead; the victim's password signs in.
        let login = await broker.post("/v1/signin/password", ["email": .string(Self.victim), "password": "squatter-pass"])
        #expect(login.errorCode == "INVALID_LOGIN_CREDENTIALS")
        #expect(await broker.get("/v1/me", headers: Self.bearer(squatter)).status == 401)
        let refresh = await broker.post(
            "/v1/token", ["refreshToken": .string(squatter.json?["refreshToken"]?.stringValue ?? "")])
        #expect(refresh.errorCode == "INVALID_REFRESH_TOKEN")
        #expect(await broker.store.account(provider: ProviderID("kakao"), subject: "4242") == nil)
        let victim = await broker.post("/v1/signin/password", ["email": .string(Self.victim), "password": "victims-own-pass"])
        #expect(victim.status == 200)
        #expect(victim.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        // The code is used up.
        let again = await Self.submit(broker, code, cookie: cookie, "&newPassword=another-pass-1")
        #expect(again.status == 400)
    }

    @Test func theAccountsMakerVerifiesWithTheirPassword() async throws {
        let broker = try await Self.start()
        let (maker, uid, code) = try await Self.squat(broker)
        let (_, cookie) = try await Self.open(broker, code)
        let verified = await Self.submit(broker, code, cookie: cookie, "&password=squatter-pass")
        #expect(verified.status == 200)
        #expect(String(decoding: verified.body, as: UTF8.self).contains("email address has been verified"))
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.emailVerified)
        // The password stays; what was linked before the email was proven goes, and with it the sessions.
        #expect(await broker.post("/v1/signin/password", ["email": .string(Self.victim), "password": "squatter-pass"]).status == 200)
        #expect(account.identities.isEmpty)
        #expect(await broker.get("/v1/me", headers: Self.bearer(maker)).status == 401)
    }

    @Test func theAPIAndAnAccountWithoutAPasswordVerifyWithTheCodeAlone() async throws {
        let broker = try await Self.start()
        // `/v1/oob/confirm` keeps applying a code alone (apps rely on it).
        let (_, uid, code) = try await Self.squat(broker)
        let confirmed = await broker.post("/v1/oob/confirm", ["oobCode": .string(code)])
        #expect(confirmed.status == 200)
        #expect(confirmed.json?["action"]?.stringValue == "VERIFY_EMAIL")
        #expect(await broker.store.account(id: uid)?.emailVerified == true)
    }

    /// The page looked at an account that needed no password (no password yet, email never verified), then a
    /// password was set before the verification's transaction: the code alone no longer verifies it. Nothing
    /// changes, the code stays usable, and the next look asks for the password.
    @Test func aPasswordSetBetweenThePagesLookAndTheChangeStopsTheCodeAlone() async throws {
        let broker = try await Self.start()
        let uid = AccountID("no-password-yet")
        try await broker.store.create(
            Account(id: uid, email: Self.victim, emailVerified: false, createdAt: Date()))
        let link = try await broker.services.actionCodes.issueLink(
            .verifyEmail, email: Self.victim, continueURL: nil, requestID: "r1")
        let code = link.oobCode
        #expect(try await broker.services.actionCodes.verificationNeedsPassword(code: code) == false)
        // Meanwhile, a password (the squatter's) is set.
        let hash = try await SaltedDigestPasswordHasher().hash("squatter-pass")
        _ = try await broker.store.update(id: uid, options: AccountWriteOptions()) { $0.password = .chosen(hash) }

        let refused = await #expect(throws: AccountError.self) {
            _ = try await broker.services.actionCodes.confirm(
                code: code, newPassword: nil, proof: .unguardedCode, requestID: "r2")
        }
        #expect(refused?.code == .invalidLoginCredentials)
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.emailVerified == false)
        #expect(account.password?.hash == hash)
        // The code was not used: the page now asks for the password, and the right one verifies.
        #expect(try await broker.services.actionCodes.verificationNeedsPassword(code: code))
        let confirmed = try await broker.services.actionCodes.confirm(
            code: code, newPassword: nil, proof: .password("squatter-pass"), requestID: "r3")
        #expect(confirmed.account.emailVerified)
    }
}
