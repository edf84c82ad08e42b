import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The Firebase surface's out-of-band flows (contract sections 9 and 11): `sendOobCode` (client mail through the
/// outbox, admin `returnOobLink`), `resetPassword`, `signInWithEmailLink`, `createSessionCookie` and applying a
/// verification code, with the state after every refusal.
@Suite struct FirebaseOOBTests {
    static let toolkit = FirebaseEndpoints.identityToolkitPath
    static let legacy = FirebaseEndpoints.legacyRelyingPartyPath
    static let owner = ["Authorization": "Bearer owner"]

    static func start(
        mail: Bool = false, protection: Bool = true, clock: ManualClock = ManualClock(Date())
    )
        async throws -> InProcessBroker
    {
        try await InProcessBroker.start(clock: clock) { document in
            guard case .object(var members) = document else { return document }
            if mail {
                members["mail"] = [
                    "smtpUrl": "smtp://127.0.0.1:2525", "from": "no-reply@example.com",
                    "allowedContinueUrls": ["https://app.example.com/finish"],
                ]
            }
            if !protection { members["firebaseCompat"] = ["emailEnumerationProtection": false] }
            return .object(members)
        }
    }

    /// Firebase's code: `error.message` up to ` : `.
    static func code(_ response: TestResponse) -> String? { code(json: response.json) }

    /// Firebase's code in an error body.
    static func code(json: JSONValue?) -> String? {
        json?["error"]?["message"]?.stringValue.map { String($0.split(separator: " ", maxSplits: 1).first ?? "") }
    }

    static func client(_ broker: InProcessBroker, _ method: String, _ body: JSONValue) async -> TestResponse {
        await broker.firebasePost(toolkit + "/accounts:" + method + "?key=test-api-key", body)
    }

    static func adminLink(_ broker: InProcessBroker, _ body: JSONValue) async -> TestResponse {
        await broker.firebasePost(
            toolkit + "/projects/\(broker.services.config.projectID)/accounts:sendOobCode", body, headers: owner)
    }

    static func query(_ link: String?) throws -> [String: String] {
        let text = try #require(link)
        let items = try #require(URLComponents(string: text)?.queryItems)
        return Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
    }

    /// The code in the newest mail queued to `email`.
    static func mailedCode(_ broker: InProcessBroker, to email: String) async throws -> String? {
        for job in await broker.store.outboxJobs(uid: nil, limit: 100) where job.kind == .mail {
            guard let mail = JSONValue.parse(job.payload), mail["to"]?.stringValue == email,
                let text = mail["text"]?.stringValue, let range = text.range(of: "oobCode=")
            else { continue }
            return String(text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
        return nil
    }

    static func mails(_ broker: InProcessBroker) async throws -> Int {
        await broker.store.outboxJobs(uid: nil, limit: 100).filter { $0.kind == .mail }.count
    }

    static func signUp(_ broker: InProcessBroker, _ email: String) async throws -> SignInResult {
        try await broker.services.signIn.signUp(
            email: email, password: "secret-password", displayName: nil, requestID: "t", surface: .firebase)
    }

    // MARK: Admin links

    @Test func anAdminLinkNeedsBearerOwnerAndNoMailAndItsCodeResetsThePasswordOnce() async throws {
        let broker = try await Self.start()
        let user = try await Self.signUp(broker, "reset@example.com")
        let body: JSONValue = [
            "requestType": "PASSWORD_RESET", "email": "reset@example.com", "returnOobLink": true,
            "continueUrl": "https://anywhere.example.org/next", "canHandleCodeInApp": true,
        ]
        let path = Self.toolkit + "/projects/\(broker.services.config.projectID)/accounts:sendOobCode"
        let anonymous = await broker.firebasePost(path + "?key=k", body)
        #expect(anonymous.status == 401)
        #expect(
            await broker.store.auditEvents(uid: user.account.id, before: nil, limit: 10).allSatisfy {
                $0.action != .oobLinkIssued
            })
        // A client may not ask for the link itself.
        let client = await Self.client(broker, "sendOobCode", body)
        #expect(client.status == 400)
        #expect(Self.code(client) == "INSUFFICIENT_PERMISSION")

        let link = await Self.adminLink(broker, body)
        #expect(link.status == 200)
        #expect(link.json?["email"]?.stringValue == "reset@example.com")
        let query = try Self.query(link.json?["oobLink"]?.stringValue)
        #expect(query["mode"] == "resetPassword")
        #expect(query["continueUrl"] == "https://anywhere.example.org/next")
        let code = try #require(query["oobCode"])
        #expect(link.json?["oobCode"]?.stringValue == code)
        #expect(link.json?["oobLink"]?.stringValue?.hasPrefix(broker.services.config.issuer + "/auth/action?") == true)
        #expect(try await Self.mails(broker) == 0)

        // The code alone answers what it is for, and uses nothing up.
        for _ in 0..<2 {
            let inspect = await Self.client(broker, "resetPassword", ["oobCode": .string(code)])
            #expect(inspect.status == 200)
            #expect(inspect.json?["requestType"]?.stringValue == "PASSWORD_RESET")
            #expect(inspect.json?["email"]?.stringValue == "reset@example.com")
        }
        let weak = await Self.client(broker, "resetPassword", ["oobCode": .string(code), "newPassword": "123"])
        #expect(Self.code(weak) == "WEAK_PASSWORD")
        let reset = await broker.firebasePost(
            Self.legacy + "/resetPassword?key=k", ["oobCode": .string(code), "newPassword": "new-password-1"])
        #expect(reset.status == 200)
        #expect(reset.json?["requestType"]?.stringValue == "PASSWORD_RESET")
        // Every session ended; the new password signs in; the email counts as verified.
        await #expect(throws: SessionError.self) {
            _ = try await broker.services.sessions.refresh(user.tokens.refreshToken, surface: .firebase)
        }
        _ = try await broker.services.signIn.signIn(
            email: "reset@example.com", password: "new-password-1", requestID: "t")
        #expect(await broker.store.account(id: user.account.id)?.emailVerified == true)
        let again = await Self.client(
            broker, "resetPassword", ["oobCode": .string(code), "newPassword": "new-password-2"])
        #expect(again.status == 400)
        #expect(Self.code(again) == "INVALID_OOB_CODE")
        _ = try await broker.services.signIn.signIn(
            email: "reset@example.com", password: "new-password-1", requestID: "t")
    }

    @Test(arguments: [
        (["requestType": "PASSWORD_RESET", "email": "nobody@example.com"] as JSONValue, "EMAIL_NOT_FOUND"),
        (["requestType": "VERIFY_EMAIL", "email": "nobody@example.com"] as JSONValue, "USER_NOT_FOUND"),
        (["email": "a@example.com"] as JSONValue, "MISSING_REQ_TYPE"),
        (["requestType": "RECOVER_EMAIL", "email": "a@example.com"] as JSONValue, "INVALID_REQ_TYPE"),
        (["requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "a@example.com"] as JSONValue, "MISSING_NEW_EMAIL"),
        (["requestType": "EMAIL_SIGNIN"] as JSONValue, "MISSING_EMAIL"),
        (["requestType": "EMAIL_SIGNIN", "email": "not an email"] as JSONValue, "INVALID_EMAIL"),
        (
            ["requestType": "EMAIL_SIGNIN", "email": "a@example.com", "continueUrl": "/relative"] as JSONValue,
            "INVALID_CONTINUE_URI"
        ),
    ])
    func aRefusedAdminLinkStoresNothing(body: JSONValue, expected: String) async throws {
        let broker = try await Self.start()
        guard case .object(var members) = body else { return }
        members["returnOobLink"] = true
        let response = await Self.adminLink(broker, .object(members))
        #expect(response.status == 400)
        #expect(Self.code(response) == expected)
        #expect(await broker.store.auditEvents(uid: nil, before: nil, limit: 10).isEmpty)
        #expect(await broker.store.account(email: "nobody@example.com") == nil)
    }

    // MARK: Client mail

    @Test func clientMailNeedsTheMailSection() async throws {
        let broker = try await Self.start()
        _ = try await Self.signUp(broker, "a@example.com")
        for type in ["PASSWORD_RESET", "EMAIL_SIGNIN"] {
            let response = await Self.client(
                broker, "sendOobCode", ["requestType": .string(type), "email": "a@example.com"])
            #expect(response.status == 400)
            #expect(Self.code(response) == "OPERATION_NOT_ALLOWED")
        }
        // An admin call without returnOobLink asks for the mail too.
        let admin = await Self.adminLink(broker, ["requestType": "PASSWORD_RESET", "email": "a@example.com"])
        #expect(admin.status == 400)
        #expect(Self.code(admin) == "OPERATION_NOT_ALLOWED")
        #expect(try await Self.mails(broker) == 0)
        #expect(
            await broker.store.auditEvents(uid: nil, before: nil, limit: 10).allSatisfy {
                $0.action != .oobLinkIssued && $0.action != .mailQueued
            })
    }

    @Test func aClientResetIsMailedWithoutEnumerationAndOnlyToAllowedContinueURLs() async throws {
        let broker = try await Self.start(mail: true)
        _ = try await Self.signUp(broker, "a@example.com")
        let sent = await broker.firebasePost(
            Self.legacy + "/getOobConfirmationCode?key=k",
            [
                "requestType": "PASSWORD_RESET", "email": "a@example.com",
                "continueUrl": "https://app.example.com/finish/x",
            ])
        #expect(sent.status == 200)
        #expect(sent.json?["kind"]?.stringValue == "identitytoolkit#GetOobConfirmationCodeResponse")
        #expect(sent.json?["email"]?.stringValue == "a@example.com")
        #expect(sent.json?["oobCode"] == nil)
        #expect(try await Self.mails(broker) == 1)
        // An unknown address gets the same answer and no mail.
        let unknown = await Self.client(
            broker, "sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
        #expect(unknown.status == 200)
        #expect(unknown.json?["email"]?.stringValue == "nobody@example.com")
        #expect(try await Self.mails(broker) == 1)
        let foreign = await Self.client(
            broker, "sendOobCode",
            ["requestType": "PASSWORD_RESET", "email": "a@example.com", "continueUrl": "https://evil.example/finish"])
        #expect(foreign.status == 400)
        #expect(Self.code(foreign) == "UNAUTHORIZED_DOMAIN")
        #expect(try await Self.mails(broker) == 1)
        // The mailed code resets the password.
        let code = try #require(try await Self.mailedCode(broker, to: "a@example.com"))
        let reset = await Self.client(
            broker, "resetPassword", ["oobCode": .string(code), "newPassword": "new-password-1"])
        #expect(reset.status == 200)
    }

    @Test func withoutEnumerationProtectionAnUnknownAddressIsEmailNotFound() async throws {
        let broker = try await Self.start(mail: true, protection: false)
        let response = await Self.client(
            broker, "sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
        #expect(response.status == 400)
        #expect(Self.code(response) == "EMAIL_NOT_FOUND")
        #expect(try await Self.mails(broker) == 0)
    }

    @Test func aVerificationMailNeedsTheUsersIDTokenAndItsCodeIsAppliedOnce() async throws {
        let broker = try await Self.start(mail: true)
        let user = try await Self.signUp(broker, "v@example.com")
        let bad = await Self.client(broker, "sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": "not-a-token"])
        #expect(Self.code(bad) == "INVALID_ID_TOKEN")
        #expect(try await Self.mails(broker) == 0)
        let sent = await Self.client(
            broker, "sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(user.tokens.idToken)])
        #expect(sent.status == 200)
        #expect(sent.json?["email"]?.stringValue == "v@example.com")
        let code = try #require(try await Self.mailedCode(broker, to: "v@example.com"))

        // accounts:update (setAccountInfo) with the oobCode applies it, as the SDKs' applyActionCode sends it.
        func update(_ body: JSONValue) async -> TestResponse {
            await broker.firebasePost(Self.legacy + "/setAccountInfo?key=k", body)
        }
        #expect(await broker.store.account(id: user.account.id)?.emailVerified == false)
        let applied = await update(["oobCode": .string(code)])
        #expect(applied.status == 200)
        #expect(applied.json?["emailVerified"]?.boolValue == true)
        #expect(applied.json?["localId"]?.stringValue == user.account.id.rawValue)
        #expect(applied.json?["passwordHash"]?.stringValue == "UkVEQUNURUQ=")
        #expect(await broker.store.account(id: user.account.id)?.emailVerified == true)
        let again = await update(["oobCode": .string(code)])
        #expect(again.status == 400)
        #expect(Self.code(again) == "INVALID_OOB_CODE")
    }

    @Test func theSixthMailToAnAddressWithinTheHourIsRefused() async throws {
        let broker = try await Self.start(mail: true)
        for _ in 0..<EmailActionService.mailsPerHour {
            let sent = await Self.client(
                broker, "sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "many@example.com"])
            #expect(sent.status == 200)
        }
        let refused = await Self.client(
            broker, "sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "MANY@example.com"])
        #expect(refused.status == 400)
        #expect(Self.code(refused) == "TOO_MANY_ATTEMPTS_TRY_LATER")
        #expect(refused.headers["retry-after"] != nil)
        #expect(try await Self.mails(broker) == EmailActionService.mailsPerHour)
    }

    // MARK: Email-link sign-in

    @Test func aMailedSignInLinkCreatesTheVerifiedUserWithASessionOfThisListener() async throws {
        let broker = try await Self.start(mail: true)
        let sent = await Self.client(
            broker, "sendOobCode",
            [
                "requestType": "EMAIL_SIGNIN", "email": "new@example.com", "canHandleCodeInApp": true,
                "continueUrl": "https://app.example.com/finish",
            ])
        #expect(sent.status == 200)
        #expect(await broker.store.account(email: "new@example.com") == nil)
        let code = try #require(try await Self.mailedCode(broker, to: "new@example.com"))

        let inspect = await Self.client(broker, "resetPassword", ["oobCode": .string(code)])
        #expect(inspect.json?["requestType"]?.stringValue == "EMAIL_SIGNIN")
        #expect(inspect.json?["email"] == nil)
        let wrong = await Self.client(
            broker, "signInWithEmailLink", ["email": "other@example.com", "oobCode": .string(code)])
        #expect(wrong.status == 400)
        #expect(Self.code(wrong) == "INVALID_EMAIL")
        #expect(await broker.store.account(email: "other@example.com") == nil)
        let linking = await Self.client(
            broker, "signInWithEmailLink", ["email": "new@example.com", "oobCode": .string(code), "idToken": "x"])
        // An idToken is read now (a guest's upgrade, contract section 13): one that does not verify is refused so.
        #expect(Self.code(linking) == "INVALID_ID_TOKEN")
        #expect(
            Self.code(await Self.client(broker, "signInWithEmailLink", ["email": "new@example.com"]))
                == "MISSING_OOB_CODE")
        #expect(await broker.store.account(email: "new@example.com") == nil)

        let signedIn = await Self.client(
            broker, "signInWithEmailLink", ["email": "new@example.com", "oobCode": .string(code)])
        #expect(signedIn.status == 200)
        #expect(signedIn.json?["isNewUser"]?.boolValue == true)
        #expect(signedIn.json?["expiresIn"]?.stringValue == String(Int(broker.services.config.idTokenTTL)))
        let account = try #require(await broker.store.account(email: "new@example.com"))
        #expect(account.emailVerified)
        #expect(signedIn.json?["localId"]?.stringValue == account.id.rawValue)
        let user = try await FirebaseIDTokenVerifier(services: broker.services)
            .verify(try #require(signedIn.json?["idToken"]?.stringValue))
        #expect(user.account.id == account.id)
        #expect(user.signInProvider == "password")
        let refresh = try #require(signedIn.json?["refreshToken"]?.stringValue)
        #expect(await broker.post("/v1/token", ["refreshToken": .string(refresh)]).status == 401)
        _ = try await broker.services.sessions.refresh(refresh, surface: .firebase)

        let again = await Self.client(
            broker, "signInWithEmailLink", ["email": "new@example.com", "oobCode": .string(code)])
        #expect(Self.code(again) == "INVALID_OOB_CODE")
    }

    @Test func anExpiredSignInCodeIsExpiredAndCreatesNothing() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        let link = await Self.adminLink(
            broker, ["requestType": "EMAIL_SIGNIN", "email": "late@example.com", "returnOobLink": true])
        let code = try #require(link.json?["oobCode"]?.stringValue)
        clock.advance(by: EmailActionService.codeLifetime + 1)  // the store keeps whole milliseconds
        let late = await broker.firebasePost(
            Self.legacy + "/emailLinkSignin?key=k", ["email": "late@example.com", "oobCode": .string(code)])
        #expect(late.status == 400)
        #expect(Self.code(late) == "EXPIRED_OOB_CODE")
        #expect(await broker.store.account(email: "late@example.com") == nil)
    }

    // MARK: Session cookies

    @Test func aSessionCookieIsMintedForAValidIDTokenWithinFirebasesBounds() async throws {
        let broker = try await Self.start()
        let user = try await Self.signUp(broker, "cookie@example.com")
        let path = Self.toolkit + "/projects/\(broker.services.config.projectID):createSessionCookie"
        let token = JSONValue.string(user.tokens.idToken)
        #expect(await broker.firebasePost(path + "?key=k", ["idToken": token, "validDuration": 3600]).status == 401)
        for (body, expected) in [
            (["idToken": token, "validDuration": 299] as JSONValue, "INVALID_DURATION"),
            (["idToken": token, "validDuration": 1_209_601] as JSONValue, "INVALID_DURATION"),
            (["idToken": token, "validDuration": "soon"] as JSONValue, "INVALID_DURATION"),
            (["validDuration": 3600] as JSONValue, "MISSING_ID_TOKEN"),
            (["idToken": "not-a-token", "validDuration": 3600] as JSONValue, "INVALID_ID_TOKEN"),
        ] {
            let refused = await broker.firebasePost(path, body, headers: Self.owner)
            #expect(refused.status == 400)
            #expect(Self.code(refused) == expected)
        }
        let other = await broker.firebasePost(
            Self.toolkit + "/projects/another-project:createSessionCookie", ["idToken": token], headers: Self.owner)
        #expect(other.status != 200)

        let minted = await broker.firebasePost(
            path, ["idToken": token, "validDuration": "432000"], headers: Self.owner)
        #expect(minted.status == 200)
        let cookie = try #require(minted.json?["sessionCookie"]?.stringValue)
        let claims = try await FirebaseSessionCookies(
            keys: broker.services.keys, clock: broker.services.clock, projectID: broker.services.config.projectID
        ).verify(cookie)
        #expect(claims["iss"]?.stringValue == "https://session.firebase.google.com/" + broker.services.config.projectID)
        #expect(claims["sub"]?.stringValue == user.account.id.rawValue)
        #expect(claims["exp"]?.intValue.flatMap { exp in claims["iat"]?.intValue.map { exp - $0 } } == 432_000)

        // A disabled user's token makes no cookie.
        _ = try await broker.store.update(id: user.account.id) { $0.disabled = true }
        let disabled = await broker.firebasePost(path, ["idToken": token, "validDuration": 3600], headers: Self.owner)
        #expect(Self.code(disabled) == "USER_DISABLED")
    }

    // MARK: The iOS SDK's requests, replayed

    /// The headers firebase-ios-sdk's `AuthBackend` sets on every request.
    static let iOSHeaders = [
        "Content-Type": "application/json", "X-Client-Version": "iOS/FirebaseSDK/11.6.0/FirebaseCore-iOS",
        "X-Ios-Bundle-Identifier": "com.example.app", "X-Firebase-GMPID": "1:123456789:ios:abcdef",
        "Accept-Language": "en", "X-Firebase-Locale": "ko",
    ]

    @Test func theIOSSDKsPasswordResetAndEmailLinkSignInRequests() async throws {
        let broker = try await Self.start(mail: true)
        _ = try await Self.signUp(broker, "ios@example.com")
        // Auth.auth().sendPasswordReset(withEmail:) -> GetOOBConfirmationCodeRequest
        let reset = await broker.firebase(
            "POST", Self.legacy + "/getOobConfirmationCode?key=AIzaFakeKey",
            json: ["requestType": "PASSWORD_RESET", "email": "ios@example.com", "clientType": "CLIENT_TYPE_IOS"],
            headers: Self.iOSHeaders)
        #expect(reset.status == 200)
        #expect(reset.json?["email"]?.stringValue == "ios@example.com")
        let mail = try #require(await broker.store.outboxJobs(uid: nil, limit: 10).first { $0.kind == .mail })
        #expect(JSONValue.parse(mail.payload)?["subject"]?.stringValue?.contains("비밀번호") == true)  // X-Firebase-Locale

        // Auth.auth().sendSignInLink(toEmail:actionCodeSettings:), then signIn(withEmail:link:):
        // EmailLinkSignInRequest
        let send = await broker.firebase(
            "POST", Self.legacy + "/getOobConfirmationCode?key=AIzaFakeKey",
            json: [
                "requestType": "EMAIL_SIGNIN", "email": "ios@example.com",
                "continueUrl": "https://app.example.com/finish",
                "iOSBundleId": "com.example.app", "canHandleCodeInApp": true, "clientType": "CLIENT_TYPE_IOS",
            ], headers: Self.iOSHeaders)
        #expect(send.status == 200)
        let code = try #require(try await Self.mailedCode(broker, to: "ios@example.com"))
        let signIn = await broker.firebase(
            "POST", Self.legacy + "/emailLinkSignin?key=AIzaFakeKey",
            json: ["email": "ios@example.com", "oobCode": .string(code), "clientType": "CLIENT_TYPE_IOS"],
            headers: Self.iOSHeaders)
        #expect(signIn.status == 200)
        // What EmailLinkSignInResponse reads: email, idToken, isNewUser, refreshToken, expiresIn (a string).
        #expect(signIn.json?["email"]?.stringValue == "ios@example.com")
        #expect(signIn.json?["idToken"]?.stringValue?.isEmpty == false)
        #expect(signIn.json?["refreshToken"]?.stringValue?.isEmpty == false)
        #expect(signIn.json?["isNewUser"]?.boolValue == false)
        #expect(signIn.json?["expiresIn"]?.stringValue.flatMap { Int($0) } != nil)
    }
}
