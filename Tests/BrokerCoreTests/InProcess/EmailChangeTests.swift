import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 9's email change: native `POST /v1/me/email` and the compatibility listener's
/// `sendOobCode VERIFY_AND_CHANGE_EMAIL` (the iOS SDK's `sendEmailVerification(beforeUpdatingEmail:)` body), the
/// change only once its link is confirmed, the old address's recovery link, and every refusal with the state after.
@Suite struct EmailChangeTests {
    static let toolkit = FirebaseEndpoints.identityToolkitPath

    static func start(mail: Bool = true, clock: ManualClock = ManualClock(Date())) async throws -> InProcessBroker {
        try await InProcessBroker.start(clock: clock) { document in
            guard case .object(var members) = document, mail else { return document }
            members["mail"] = [
                "smtpUrl": "smtp://127.0.0.1:2525", "from": "no-reply@example.com",
                "allowedContinueUrls": ["https://app.example.com/finish"],
            ]
            return .object(members)
        }
    }

    static func bearer(_ session: TestResponse) -> [String: String] {
        ["Authorization": "Bearer " + (session.json?["idToken"]?.stringValue ?? "")]
    }

    /// The mails queued so far: (to, mode, code), oldest first.
    static func mails(_ broker: InProcessBroker) async -> [(to: String, mode: String, code: String)] {
        await broker.store.outboxJobs(uid: nil, limit: 100).filter { $0.kind == .mail }.compactMap { job in
            guard let mail = JSONValue.parse(job.payload), let to = mail["to"]?.stringValue,
                let text = mail["text"]?.stringValue,
                let link = text.split(whereSeparator: \.isWhitespace).first(where: { $0.contains("oobCode=") }),
                let items = URLComponents(string: String(link))?.queryItems
            else { return nil }
            let query = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
            return (to, query["mode"] ?? "", query["oobCode"] ?? "")
        }.reversed()
    }

    static func code(_ response: TestResponse) -> String? {
        response.json?["error"]?["message"]?.stringValue.map {
            String($0.split(separator: " ", maxSplits: 1).first ?? "")
        }
    }

    static func client(_ broker: InProcessBroker, _ method: String, _ body: JSONValue) async -> TestResponse {
        await broker.firebasePost(toolkit + "/accounts:" + method + "?key=test-api-key", body)
    }

    // MARK: Native

    @Test func theChangeAppliesOnlyWhenConfirmedAndTheOldAddressCanPutItBack() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        let session = await broker.post("/v1/signup", ["email": "Alice@example.com", "password": "secret-1"])
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        let asked = await broker.post(
            "/v1/me/email", ["newEmail": "Bob@Example.com", "continueUrl": "https://app.example.com/finish/x"],
            headers: Self.bearer(session))
        #expect(asked.status == 204)
        // Nothing changed yet: the mail went to the new address.
        let before = try #require(await broker.store.account(id: uid))
        #expect(before.email == "Alice@example.com")
        let mails = await Self.mails(broker)
        #expect(mails.map(\.to) == ["Bob@Example.com"])
        #expect(mails.first?.mode == "verifyAndChangeEmail")
        #expect(await broker.get("/v1/me", headers: Self.bearer(session)).status == 200)

        let confirmed = await broker.post("/v1/oob/confirm", ["oobCode": .string(mails[0].code)])
        #expect(confirmed.status == 200)
        #expect(confirmed.json == ["email": "Bob@Example.com", "action": "VERIFY_AND_CHANGE_EMAIL"])
        let changed = try #require(await broker.store.account(id: uid))
        #expect(changed.email == "Bob@Example.com" && changed.emailVerified)
        #expect(changed.password?.hash == before.password?.hash)
        // Every session ended; the password signs in with the new address only.
        #expect(await broker.get("/v1/me", headers: Self.bearer(session)).status == 401)
        let refresh = await broker.post(
            "/v1/token", ["refreshToken": .string(session.json?["refreshToken"]?.stringValue ?? "")])
        #expect(refresh.status == 401)
        #expect(
            await broker.post("/v1/signin/password", ["email": "bob@example.com", "password": "secret-1"]).status == 200
        )
        #expect(
            await broker.post("/v1/signin/password", ["email": "alice@example.com", "password": "secret-1"]).status
                == 400)
        let used = await broker.post("/v1/oob/confirm", ["oobCode": .string(mails[0].code)])
        #expect(used.status == 400 && used.errorCode == "INVALID_OOB_CODE")
        let events = await broker.store.auditEvents(uid: uid, before: nil, limit: 20).map(\.action)
        #expect(events.contains(.emailChange))

        // The old address got its recovery link; within 72 hours it puts the address back and ends every session.
        let recovery = try #require(await Self.mails(broker).last)
        #expect(recovery.to == "Alice@example.com" && recovery.mode == "recoverEmail")
        clock.advance(by: 71 * 3600)
        let later = await broker.post("/v1/signin/password", ["email": "bob@example.com", "password": "secret-1"])
        #expect(later.status == 200)
        let recovered = await broker.post("/v1/oob/confirm", ["oobCode": .string(recovery.code)])
        #expect(recovered.json == ["email": "Alice@example.com", "action": "RECOVER_EMAIL"])
        let restored = try #require(await broker.store.account(id: uid))
        #expect(restored.email == "Alice@example.com" && restored.emailVerified)
        #expect(await broker.get("/v1/me", headers: Self.bearer(later)).status == 401)
        #expect(await broker.store.auditEvents(uid: uid, before: nil, limit: 20).map(\.action).contains(.emailRecover))
        // A recovery mails nothing more.
        #expect(await Self.mails(broker).count == 2)
    }

    @Test func theRecoveryLinkWorksFor72HoursAndTheChangeLinkForOne() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        let session = await broker.post("/v1/signup", ["email": "carol@example.com", "password": "secret-1"])
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        #expect(
            await broker.post("/v1/me/email", ["newEmail": "dan@example.com"], headers: Self.bearer(session)).status
                == 204)
        let change = try #require(await Self.mails(broker).first)
        clock.advance(by: 3601)
        let late = await broker.post("/v1/oob/confirm", ["oobCode": .string(change.code)])
        #expect(late.status == 400 && late.errorCode == "INVALID_OOB_CODE")
        #expect(await broker.store.account(id: uid)?.email == "carol@example.com")

        let again = await broker.post("/v1/signin/password", ["email": "carol@example.com", "password": "secret-1"])
        #expect(
            await broker.post("/v1/me/email", ["newEmail": "dan@example.com"], headers: Self.bearer(again)).status
                == 204)
        let second = try #require(await Self.mails(broker).last)
        #expect(await broker.post("/v1/oob/confirm", ["oobCode": .string(second.code)]).status == 200)
        let recovery = try #require(await Self.mails(broker).last)
        #expect(recovery.mode == "recoverEmail")
        clock.advance(by: 72 * 3600 + 1)
        let expired = await broker.post("/v1/oob/confirm", ["oobCode": .string(recovery.code)])
        #expect(expired.status == 400 && expired.errorCode == "INVALID_OOB_CODE")
        #expect(await broker.store.account(id: uid)?.email == "dan@example.com")
    }

    /// Each refused request: its status and code, no code, no mail, no change.
    @Test(arguments: [
        ("no token", 401, "UNAUTHENTICATED"), ("old sign-in", 401, "RECENT_SIGN_IN_REQUIRED"),
        ("not an address", 400, "INVALID_EMAIL"), ("taken", 409, "EMAIL_EXISTS"), ("own", 400, "INVALID_REQUEST"),
        ("unknown field", 400, "INVALID_REQUEST"), ("continueUrl", 400, "INVALID_REQUEST"),
        ("missing", 400, "INVALID_REQUEST"),
    ])
    func aRefusedRequestStoresAndMailsNothing(_ kind: String, _ status: Int, _ expected: String) async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        _ = await broker.post("/v1/signup", ["email": "taken@example.com", "password": "secret-1"])
        let session = await broker.post("/v1/signup", ["email": "erin@example.com", "password": "secret-1"])
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        var headers = Self.bearer(session)
        var body: JSONValue = ["newEmail": "new@example.com"]
        switch kind {
        case "no token": headers = [:]
        case "old sign-in": clock.advance(by: 301)
        case "not an address": body = ["newEmail": "not an address"]
        case "taken": body = ["newEmail": "TAKEN@example.com"]
        case "own": body = ["newEmail": "Erin@Example.com"]
        case "unknown field": body = ["newEmail": "new@example.com", "email": "x@example.com"]
        case "continueUrl": body = ["newEmail": "new@example.com", "continueUrl": "https://evil.example.net/"]
        default: body = [:]
        }
        let response = await broker.post("/v1/me/email", body, headers: headers)
        #expect(response.status == status)
        #expect(response.errorCode == expected)
        #expect(await Self.mails(broker).isEmpty)
        #expect(await broker.store.account(id: uid)?.email == "erin@example.com")
        #expect(!(await broker.store.auditEvents(uid: uid, before: nil, limit: 20).map(\.action).contains(.mailQueued)))
    }

    @Test func withoutMailTheChangeIs501AndASixthMailWithinTheHourIs429() async throws {
        let plain = try await Self.start(mail: false)
        let session = await plain.post("/v1/signup", ["email": "fay@example.com", "password": "secret-1"])
        let refused = await plain.post("/v1/me/email", ["newEmail": "g@example.com"], headers: Self.bearer(session))
        #expect(refused.status == 501 && refused.errorCode == "MAIL_NOT_CONFIGURED")
        #expect(await plain.store.outboxJobs(uid: nil, limit: 10).isEmpty)

        let broker = try await Self.start()
        let other = await broker.post("/v1/signup", ["email": "fay@example.com", "password": "secret-1"])
        for _ in 0..<5 {
            #expect(
                await broker.post("/v1/me/email", ["newEmail": "g@example.com"], headers: Self.bearer(other)).status
                    == 204)
        }
        let sixth = await broker.post("/v1/me/email", ["newEmail": "G@example.com"], headers: Self.bearer(other))
        #expect(sixth.status == 429 && sixth.errorCode == "TOO_MANY_ATTEMPTS")
        #expect(await Self.mails(broker).count == 5)
    }

    /// Confirmed after another account took the new address: 409, the code unused, nothing changed; confirmed after
    /// the account's own address changed another way: the link no longer works.
    @Test func aConfirmationRechecksTheAddresses() async throws {
        let broker = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "gil@example.com", "password": "secret-1"])
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        #expect(
            await broker.post("/v1/me/email", ["newEmail": "hal@example.com"], headers: Self.bearer(session)).status
                == 204)
        #expect(
            await broker.post("/v1/me/email", ["newEmail": "ivy@example.com"], headers: Self.bearer(session)).status
                == 204)
        let (toHal, toIvy) = (await Self.mails(broker)[0], await Self.mails(broker)[1])
        let squatter = await broker.post("/v1/signup", ["email": "hal@example.com", "password": "secret-1"])
        let taken = await broker.post("/v1/oob/confirm", ["oobCode": .string(toHal.code)])
        #expect(taken.status == 409 && taken.errorCode == "EMAIL_EXISTS")
        #expect(await broker.store.account(id: uid)?.email == "gil@example.com")
        #expect(await broker.get("/v1/me", headers: Self.bearer(session)).status == 200)
        #expect(await Self.mails(broker).count == 2)  // no recovery mail

        #expect(await broker.post("/v1/oob/confirm", ["oobCode": .string(toIvy.code)]).status == 200)
        // The squatter leaves; the first link is bound to gil@, which the account no longer has.
        #expect(await broker.request("DELETE", "/v1/me", headers: Self.bearer(squatter)).status == 204)
        let stale = await broker.post("/v1/oob/confirm", ["oobCode": .string(toHal.code)])
        #expect(stale.status == 400 && stale.errorCode == "INVALID_OOB_CODE")
        #expect(await broker.store.account(id: uid)?.email == "ivy@example.com")
    }

    @Test func aGuestHasNoAddressToChange() async throws {
        let broker = try await InProcessBroker.start { document in
            guard case .object(var members) = document else { return document }
            members["anonymous"] = ["enabled": true]
            members["mail"] = ["smtpUrl": "smtp://127.0.0.1:2525", "from": "no-reply@example.com"]
            return .object(members)
        }
        let guest = await broker.post("/v1/signin/anonymous", [:])
        #expect(guest.status == 201)
        let refused = await broker.post("/v1/me/email", ["newEmail": "j@example.com"], headers: Self.bearer(guest))
        #expect(refused.status == 400 && refused.errorCode == "INVALID_REQUEST")
        #expect(await Self.mails(broker).isEmpty)
    }

    // MARK: The compatibility listener

    /// The iOS SDK's `sendEmailVerification(beforeUpdatingEmail:)` body, then `checkActionCode` (`resetPassword`
    /// with the code alone) and `applyActionCode` (`setAccountInfo` with the code), for the change and its recovery.
    @Test func theListenerServesVerifyAndChangeEmailAndRecoverEmail() async throws {
        let broker = try await Self.start()
        let user = try await broker.services.signIn.signUp(
            email: "kim@example.com", password: "secret-1", displayName: nil, requestID: "t", surface: .firebase)
        let sent = await broker.firebasePost(
            FirebaseEndpoints.legacyRelyingPartyPath + "/getOobConfirmationCode?key=k",
            [
                "requestType": "VERIFY_AND_CHANGE_EMAIL", "newEmail": "lee@example.com",
                "idToken": .string(user.tokens.idToken), "clientType": "CLIENT_TYPE_IOS",
                "iOSBundleId": "com.example.app",
            ])
        #expect(sent.status == 200)
        #expect(sent.json?["email"]?.stringValue == "kim@example.com")
        #expect(await broker.store.account(id: user.account.id)?.email == "kim@example.com")
        let change = try #require(await Self.mails(broker).first)
        #expect(change.to == "lee@example.com" && change.mode == "verifyAndChangeEmail")

        let check = await Self.client(broker, "resetPassword", ["oobCode": .string(change.code)])
        #expect(check.status == 200)
        #expect(check.json?["requestType"]?.stringValue == "VERIFY_AND_CHANGE_EMAIL")
        #expect(check.json?["email"]?.stringValue == "kim@example.com")
        #expect(check.json?["newEmail"]?.stringValue == "lee@example.com")

        let applied = await broker.firebasePost(
            FirebaseEndpoints.legacyRelyingPartyPath + "/setAccountInfo?key=k", ["oobCode": .string(change.code)])
        #expect(applied.status == 200)
        #expect(applied.json?["email"]?.stringValue == "lee@example.com")
        #expect(applied.json?["newEmail"]?.stringValue == "lee@example.com")
        #expect(applied.json?["emailVerified"]?.boolValue == true)
        await #expect(throws: SessionError.self) {
            _ = try await broker.services.sessions.refresh(user.tokens.refreshToken, surface: .firebase)
        }

        let recovery = try #require(await Self.mails(broker).last)
        #expect(recovery.to == "kim@example.com" && recovery.mode == "recoverEmail")
        let checkRecovery = await Self.client(broker, "resetPassword", ["oobCode": .string(recovery.code)])
        #expect(checkRecovery.json?["requestType"]?.stringValue == "RECOVER_EMAIL")
        #expect(checkRecovery.json?["email"]?.stringValue == "kim@example.com")
        #expect(checkRecovery.json?["newEmail"]?.stringValue == "lee@example.com")
        // A recovery code is no password reset.
        let asReset = await Self.client(
            broker, "resetPassword", ["oobCode": .string(recovery.code), "newPassword": "other-password"])
        #expect(asReset.status == 400 && Self.code(asReset) == "INVALID_OOB_CODE")
        let restored = await Self.client(broker, "update", ["oobCode": .string(recovery.code)])
        #expect(restored.status == 200)
        #expect(restored.json?["email"]?.stringValue == "kim@example.com")
        #expect(await broker.store.account(id: user.account.id)?.email == "kim@example.com")
    }

    @Test(arguments: [
        ("missing", "MISSING_NEW_EMAIL"), ("bad", "INVALID_EMAIL"), ("taken", "EMAIL_EXISTS"),
        ("old", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"), ("token", "INVALID_ID_TOKEN"), ("nomail", "OPERATION_NOT_ALLOWED"),
    ])
    func theListenerRefusesAndStoresNothing(_ kind: String, _ expected: String) async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(mail: kind != "nomail", clock: clock)
        _ = try await broker.services.signIn.signUp(
            email: "taken@example.com", password: "secret-1", displayName: nil, requestID: "t", surface: .firebase)
        let user = try await broker.services.signIn.signUp(
            email: "mo@example.com", password: "secret-1", displayName: nil, requestID: "t", surface: .firebase)
        var body: [String: JSONValue] = [
            "requestType": "VERIFY_AND_CHANGE_EMAIL", "newEmail": "ned@example.com",
            "idToken": .string(user.tokens.idToken),
        ]
        switch kind {
        case "missing": body["newEmail"] = nil
        case "bad": body["newEmail"] = "ned at example"
        case "taken": body["newEmail"] = "Taken@example.com"
        case "old": clock.advance(by: 301)
        case "token": body["idToken"] = "not-a-token"
        default: break
        }
        let response = await Self.client(broker, "sendOobCode", .object(body))
        #expect(response.status == 400)
        #expect(Self.code(response) == expected)
        #expect(await Self.mails(broker).isEmpty)
        #expect(await broker.store.account(id: user.account.id)?.email == "mo@example.com")
    }

    @Test func anAdminLinkChangesTheAddressOnceApplied() async throws {
        let broker = try await Self.start(mail: false)
        let user = try await broker.services.signIn.signUp(
            email: "nia@example.com", password: "secret-1", displayName: nil, requestID: "t", surface: .firebase)
        let path = Self.toolkit + "/projects/\(broker.services.config.projectID)/accounts:sendOobCode"
        let owner = ["Authorization": "Bearer owner"]
        let missing = await broker.firebasePost(
            path, ["requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "nia@example.com", "returnOobLink": true],
            headers: owner)
        #expect(Self.code(missing) == "MISSING_NEW_EMAIL")
        let link = await broker.firebasePost(
            path,
            [
                "requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "nia@example.com", "newEmail": "oz@example.com",
                "returnOobLink": true,
            ], headers: owner)
        #expect(link.status == 200)
        #expect(link.json?["oobLink"]?.stringValue?.contains("mode=verifyAndChangeEmail") == true)
        let code = try #require(link.json?["oobCode"]?.stringValue)
        #expect(await broker.store.account(id: user.account.id)?.email == "nia@example.com")
        let applied = await Self.client(broker, "update", ["oobCode": .string(code)])
        #expect(applied.status == 200)
        #expect(await broker.store.account(id: user.account.id)?.email == "oz@example.com")
        // Without mail there is no recovery mail, and no recovery code.
        #expect(await Self.mails(broker).isEmpty)
    }
}
