import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerHTTP
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Every change the contract lists is an event (contract section 16), queued in the change's own transaction: the
/// compatibility listener's admin calls and imports, the email flows, second factors, and a sign-in finished with a
/// second factor. After each change, exactly its events are in the outbox; after a refused one, nothing more.
@Suite struct EventCoverageTests {
    static let owner = ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"]
    static let accounts = FirebaseEndpoints.identityToolkitPath + "/projects/stub-project/accounts"

    /// A broker sending every event type to the stubs' app, with TOTP on.
    static func start(
        clock: ManualClock, configuring more: @escaping @Sendable (inout [String: JSONValue]) -> Void = { _ in }
    ) async throws -> InProcessBroker {
        let file = try StubAppHooks.writeSecretFile()
        return try await InProcessBroker.start(
            clock: clock, adminToken: EventDeliveryTests.adminToken, cipher: try SecondFactorTests.cipher
        ) { document in
            guard case .object(var members) = document else { return document }
            members["events"] = [
                "endpoints": [
                    [
                        "url": .string(InProcessBroker.stubsBaseURL + StubAppHooks.eventsPath),
                        "secretFile": .string(file), "types": .array(EventDeliveryTests.all),
                    ]
                ]
            ]
            members["mfa"] = ["totp": ["enabled": true, "issuer": "Acme"]]
            more(&members)
            return .object(members)
        }
    }

    /// The events queued so far, as `type uid` lines, oldest first.
    static func queued(_ broker: InProcessBroker) async -> [String] {
        await EventDeliveryTests.eventJobs(broker).reversed().compactMap { job in
            guard let body = JSONValue.parse(job.payload)?["body"], let type = body["type"]?.stringValue,
                let uid = body["data"]?["uid"]?.stringValue, job.uid?.rawValue == uid
            else { return "malformed \(job.id)" }
            return "\(type) \(uid)"
        }
    }

    /// The listener's admin call `verb` as the Admin SDK makes it.
    static func admin(_ app: BrokerApp, _ verb: String, _ body: JSONValue) async -> (status: Int, json: JSONValue?) {
        let response = await app.handle(
            HTTPRequest(
                method: "POST", path: accounts + verb, query: [:],
                headers: owner.merging(["Content-Type": "application/json"]) { $1 }, body: body.serialized()))
        return (response.status, JSONValue.parse(response.body))
    }

    @Test func theListenersAdminCallsAndImportsQueueTheirEvents() async throws {
        let broker = try await Self.start(clock: ManualClock(Date()))
        let app = BrokerApp(
            services: broker.services,
            surfaces: [FirebaseSurface(services: broker.services, listener: InProcessBroker.firebaseListener)])

        #expect(await Self.admin(app, "", ["localId": "ann", "email": "ann@example.com"]).status == 200)
        #expect(await Self.queued(broker) == ["user.created ann"])

        let updated = await Self.admin(
            app, ":update",
            ["localId": "ann", "disableUser": true, "displayName": "Ann", "customAttributes": #"{"tier":"gold"}"#])
        #expect(updated.status == 200)
        #expect(await Self.queued(broker).dropFirst(1) == ["user.disabled ann", "user.updated ann"])
        #expect(await broker.store.account(id: AccountID("ann"))?.disabled == true)

        // Refused: an unknown uid, a reserved claim. Nothing changes and nothing is queued.
        let unknown = await Self.admin(app, ":update", ["localId": "ghost", "disableUser": true])
        #expect(
            unknown.status == 400
                && unknown.json?["error"]?["message"]?.stringValue?.hasPrefix("USER_NOT_FOUND") == true)
        let reserved = await Self.admin(
            app, ":update", ["localId": "ann", "customAttributes": #"{"iss":"x"}"#, "disableUser": false])
        #expect(reserved.status == 400)
        #expect(await broker.store.account(id: AccountID("ann"))?.disabled == true)
        #expect(await Self.queued(broker).count == 3)

        let enabled = await Self.admin(app, ":update", ["localId": "ann", "disableUser": false, "validSince": "1"])
        #expect(enabled.status == 200)
        #expect(await Self.queued(broker).dropFirst(3) == ["user.enabled ann", "sessions.revoked ann"])

        // batchCreate: one user.created per account written, audited as `import` in the same transaction.
        let imported = await Self.admin(
            app, ":batchCreate",
            ["users": [["localId": "imp-1", "email": "imp1@example.com"], ["localId": "ann"], ["localId": "imp-2"]]])
        #expect(imported.status == 200 && imported.json?["error"]?.arrayValue?.count == 1)
        #expect(await Self.queued(broker).dropFirst(5) == ["user.created imp-1", "user.created imp-2"])
        let audited = await broker.store.auditEvents(uid: nil, before: nil, limit: 100).filter { $0.action == .import }
        #expect(Set(audited.compactMap(\.uid)) == [AccountID("imp-1"), AccountID("imp-2")])

        #expect(await Self.admin(app, ":delete", ["localId": "ann"]).status == 200)
        #expect(await Self.admin(app, ":delete", ["localId": "ann"]).status == 400)
        #expect(await Self.queued(broker).dropFirst(7) == ["user.deleted ann"])
        #expect(await broker.store.account(id: AccountID("ann")) == nil)
    }

    @Test func theEmailFlowsQueueTheirEvents() async throws {
        let broker = try await Self.start(clock: ManualClock(Date()))
        let signUp = await broker.post("/v1/signup", ["email": "bo@example.com", "password": "secret-123"])
        let uid = try #require(signUp.json?["user"]?["uid"]?.stringValue)
        #expect(Set(await Self.queued(broker)) == ["user.created \(uid)", "user.signed_in \(uid)"])
        let codes = broker.services.actionCodes

        let verify = try await codes.issueLink(
            .verifyEmail, email: "bo@example.com", continueURL: nil, requestID: "test")
        _ = try await codes.confirm(code: verify.oobCode, newPassword: nil, requestID: "test")
        #expect(await Self.queued(broker).dropFirst(2) == ["user.updated \(uid)"])
        #expect(await broker.store.account(id: AccountID(uid))?.emailVerified == true)
        // A used code changes nothing and queues nothing.
        await #expect(throws: ActionCodeError.self) {
            _ = try await codes.confirm(code: verify.oobCode, newPassword: nil, requestID: "test")
        }
        #expect(await Self.queued(broker).count == 3)

        let reset = try await codes.issueLink(
            .resetPassword, email: "bo@example.com", continueURL: nil, requestID: "test")
        _ = try await codes.confirm(code: reset.oobCode, newPassword: "new-secret-456", requestID: "test")
        #expect(await Self.queued(broker).dropFirst(3) == ["user.updated \(uid)", "sessions.revoked \(uid)"])
        #expect(
            await broker.post("/v1/signin/password", ["email": "bo@example.com", "password": "new-secret-456"])
                .status == 200)
    }

    @Test func secondFactorsAndASignInFinishedWithOneQueueTheirEvents() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        let user = try await SecondFactorTests.enrolled(broker, clock, "cy@example.com")
        let uid = user.uid.rawValue
        let enrolment = await Self.queued(broker)
        #expect(Set(enrolment.prefix(2)) == ["user.created \(uid)", "user.signed_in \(uid)"])
        #expect(enrolment.dropFirst(2) == ["mfa.enrolled \(uid)"])

        // Held for the second factor: no sign-in yet. Finished: one.
        let held = await SecondFactorTests.signIn(broker, "cy@example.com")
        #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
        #expect(await Self.queued(broker).count == 3)
        let done = await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(try SecondFactorTests.pending(held)),
                "factorId": .string(user.factorID),
                "code": .string(try SecondFactorTests.code(user.secret, clock)),
            ])
        #expect(done.status == 200)
        #expect(await Self.queued(broker).dropFirst(3) == ["user.signed_in \(uid)"])

        let unknown = await broker.request("DELETE", "/v1/me/mfa/nope", headers: SecondFactorTests.bearer(done))
        #expect(unknown.status == 404)
        #expect(await Self.queued(broker).count == 4)
        let removed = await broker.request(
            "DELETE", "/v1/me/mfa/\(user.factorID)", headers: SecondFactorTests.bearer(done))
        #expect(removed.status == 204)
        #expect(await Self.queued(broker).dropFirst(4) == ["mfa.removed \(uid)"])
        #expect(await broker.store.secondFactors(uid: user.uid).isEmpty)
    }

    /// An endpoint's URL as listings and delivery errors show it: never its credentials or query, where an app may
    /// keep a secret.
    @Test func passkeysQueueTheirEventsAndARefusedRegistrationNone() async throws {
        let broker = try await Self.start(clock: ManualClock(Date())) { members in
            members["passkeys"] = [
                "enabled": true, "rpId": "localhost", "rpName": "Acme", "origins": ["http://localhost"],
            ]
        }
        let (session, uid) = try await PasskeyTests.signUp(broker, "pk@example.com")
        #expect(await Self.queued(broker).count == 2)
        var authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        ceremony.origin = "http://evil.example"
        #expect(try await PasskeyTests.register(broker, session, &authenticator, ceremony).status == 400)
        #expect(await Self.queued(broker).count == 2)
        #expect(try await PasskeyTests.register(broker, session, &authenticator).status == 201)
        #expect(await Self.queued(broker).dropFirst(2) == ["passkey.added \(uid.rawValue)"])
        let id = Base64URL.encode(authenticator.credentialID)
        let removed = await broker.request("DELETE", "/v1/me/passkeys/\(id)", headers: PasskeyTests.bearer(session))
        #expect(removed.status == 204)
        #expect(await Self.queued(broker).dropFirst(3) == ["passkey.removed \(uid.rawValue)"])
    }

    @Test func anEndpointIsShownWithoutItsCredentialsOrQuery() {
        #expect(
            EventRouting.shown("https://app:pw@app.example/events?token=t0p-s3cret#x") == "https://app.example/events")
        #expect(EventRouting.shown("http://127.0.0.1:8080/app/events") == "http://127.0.0.1:8080/app/events")
        let job = OutboxJob(
            kind: .event, payload: Array(#"{"url": "https://app.example/e?key=s3cret", "messageId": "m"}"#.utf8),
            createdAt: Date())
        #expect(job.json["target"] == "https://app.example/e")
        #expect(OutboxJob(kind: .mail, payload: [], createdAt: Date()).json["target"] == .null)
    }
}
