import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 9: a reset code is bound to the account's password. A newer reset code, a completed reset and
/// a password change each retire every reset code issued before; a retired code is 400 `INVALID_OOB_CODE` and
/// changes nothing.
@Suite struct ResetCodeBindingTests {
    static func start() async throws -> (InProcessBroker, ManualClock) {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(clock: clock) { document in
            guard case .object(var members) = document else { return document }
            members["mail"] = ["smtpUrl": "smtp://127.0.0.1:2525", "from": "no-reply@example.com"]
            return .object(members)
        }
        return (broker, clock)
    }

    static func requestReset(_ broker: InProcessBroker, _ email: String) async throws -> String {
        let before = try await broker.mailedCodes(to: email, mode: "resetPassword")
        #expect(await broker.post("/v1/password/reset", ["email": .string(email)]).status == 204)
        let after = try await broker.mailedCodes(to: email, mode: "resetPassword")
        return try #require(after.first { !before.contains($0) })
    }

    /// A code handed to an admin caller (Firebase's `sendOobCode` with `returnOobLink`), mailed to nobody.
    static func adminCode(_ broker: InProcessBroker, _ requestType: String, _ email: String) async throws -> String {
        let response = await broker.firebasePost(
            FirebaseEndpoints.identityToolkitPath + "/projects/\(broker.services.config.projectID)/accounts:sendOobCode",
            ["requestType": .string(requestType), "email": .string(email), "returnOobLink": true],
            headers: ["Authorization": "Bearer owner"])
        #expect(response.status == 200)
        return try #require(response.json?["oobCode"]?.stringValue)
    }

    static func confirm(_ broker: InProcessBroker, _ code: String, _ password: String) async -> TestResponse {
        await broker.post("/v1/oob/confirm", ["oobCode": .string(code), "newPassword": .string(password)])
    }

    static func signsIn(_ broker: InProcessBroker, _ email: String, _ password: String) async -> Bool {
        await broker.post("/v1/signin/password", ["email": .string(email), "password": .string(password)]).status == 200
    }

    @Test func aNewerResetCodeRetiresTheOlderOnes() async throws {
        let (broker, _) = try await Self.start()
        #expect(await broker.post("/v1/signup", ["email": "a@example.com", "password": "first-pass"]).status == 201)
        let older = try await Self.requestReset(broker, "a@example.com")
        let newer = try await Self.requestReset(broker, "a@example.com")

        let refused = await Self.confirm(broker, older, "older-pass")
        #expect(refused.status == 400)
        #expect(refused.errorCode == "INVALID_OOB_CODE")
        #expect(await Self.signsIn(broker, "a@example.com", "first-pass"))
        #expect(await !Self.signsIn(broker, "a@example.com", "older-pass"))

        #expect(await Self.confirm(broker, newer, "newer-pass").status == 200)
        #expect(await Self.signsIn(broker, "a@example.com", "newer-pass"))
    }

    @Test func aCompletedResetRetiresEveryOutstandingCode() async throws {
        let (broker, _) = try await Self.start()
        let signUp = await broker.post("/v1/signup", ["email": "b@example.com", "password": "first-pass"])
        let uid = try #require(signUp.json?["user"]?["uid"]?.stringValue)
        let mailed = try await Self.requestReset(broker, "b@example.com")
        // A second code, handed to an admin caller (Firebase's returnOobLink), replaces the mailed one; using it
        // leaves no code behind.
        let linked = try await Self.adminCode(broker, "PASSWORD_RESET", "b@example.com")
        #expect(await Self.confirm(broker, linked, "linked-pass").status == 200)
        let stale = await Self.confirm(broker, mailed, "mailed-pass")
        #expect(stale.errorCode == "INVALID_OOB_CODE")
        #expect(await Self.signsIn(broker, "b@example.com", "linked-pass"))
        #expect(await broker.store.account(id: AccountID(uid))?.emailVerified == true)
    }

    @Test func aPasswordChangeRetiresEveryOutstandingCode() async throws {
        let (broker, _) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "c@example.com", "password": "first-pass"])
        let code = try await Self.requestReset(broker, "c@example.com")
        let changed = await broker.post(
            "/v1/me/password", ["newPassword": "changed-pass"],
            headers: ["Authorization": "Bearer " + (session.json?["idToken"]?.stringValue ?? "")])
        #expect(changed.status == 200)

        let refused = await Self.confirm(broker, code, "reset-pass")
        #expect(refused.status == 400)
        #expect(refused.errorCode == "INVALID_OOB_CODE")
        #expect(await Self.signsIn(broker, "c@example.com", "changed-pass"))
        #expect(await !Self.signsIn(broker, "c@example.com", "reset-pass"))
        // A new reset code after the change works.
        let fresh = try await Self.requestReset(broker, "c@example.com")
        #expect(await Self.confirm(broker, fresh, "reset-pass").status == 200)
    }

    @Test func aVerificationCodeOutlivesAPasswordChange() async throws {
        let (broker, _) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "d@example.com", "password": "first-pass"])
        let bearer = ["Authorization": "Bearer " + (session.json?["idToken"]?.stringValue ?? "")]
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        let code = try await Self.adminCode(broker, "VERIFY_EMAIL", "d@example.com")
        #expect(await broker.post("/v1/me/password", ["newPassword": "changed-pass"], headers: bearer).status == 200)
        let verified = await broker.post("/v1/oob/confirm", ["oobCode": .string(code)])
        #expect(verified.status == 200)
        #expect(await broker.store.account(id: uid)?.emailVerified == true)
    }

    /// Issue 25 finding 6: a reset for an address without an account makes the code and renders the mail as one
    /// with an account does (the time taken tells nothing: `bench/oob-timing` measures it), and stores only its
    /// count and an audit event saying no mail went.
    @Test func anAddressWithoutAnAccountIsAnsweredAndAuditedWithoutAMail() async throws {
        let (broker, _) = try await Self.start()
        let unknown = await broker.post("/v1/password/reset", ["email": "Nobody@example.com"])
        #expect(unknown.status == 204)
        #expect(await broker.store.outboxJobs(uid: nil, limit: 10).isEmpty)
        let events = await broker.store.auditEvents(uid: nil, before: nil, limit: 10)
        #expect(events.count == 1)
        #expect(events.first?.action == .mailQueued)
        #expect(events.first?.outcome == "no_account")
        #expect(events.first?.uid == nil)
        #expect(events.first?.provider == "resetPassword")
    }
}
