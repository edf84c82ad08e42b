import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 10: `authorizationCode` on Apple's sign-in and link, exchanged at `{apiBaseUrl}/auth/token`
/// with an ES256 client secret; Apple's refresh token kept sealed; a refused code or an Apple outage stores
/// nothing; a deletion revokes the token through the outbox.
@Suite struct AppleCodeExchangeTests {
    static let adminToken = "an-admin-token-of-32-characters!"

    struct Fixture {
        let broker: InProcessBroker
        let cipher: OutboxCipher
        let clock: ManualClock
    }

    /// The broker with `apple.clientSecret` configured (the stub's team, key and client ids, and its `.p8`).
    static func start() async throws -> Fixture {
        let cipher = OutboxCipher(key: try AESGCMKey(bytes: SecureRandom.bytes(32)))
        let clock = ManualClock(Date())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyFile = try StubProviders().appleAuth.writeKeyFile(into: directory)
        let broker = try await InProcessBroker.start(clock: clock, adminToken: adminToken, cipher: cipher) { document in
            withClientSecret(document, keyFile: keyFile)
        }
        return Fixture(broker: broker, cipher: cipher, clock: clock)
    }

    static func withClientSecret(_ document: JSONValue, keyFile: String) -> JSONValue {
        guard case .object(var members) = document, case .object(var providers)? = members["providers"],
            case .object(var apple)? = providers["apple"]
        else { return document }
        apple["clientSecret"] = [
            "teamId": .string(StubAppleAuth.teamID), "keyId": .string(StubAppleAuth.keyID),
            "privateKeyFile": .string(keyFile), "clientId": .string(StubAppleAuth.clientID),
        ]
        providers["apple"] = .object(apple)
        members["providers"] = .object(providers)
        return .object(members)
    }

    static func body(_ broker: InProcessBroker, subject: String, code: String?) throws -> JSONValue {
        let nonce = "nonce-" + Hex.encode(SecureRandom.bytes(6))
        let token = try broker.stubs.idToken(
            "apple", claims: ["sub": .string(subject), "nonce": .string(Hex.encode(Digest.sha256(nonce)))])
        var members: [String: JSONValue] = ["identityToken": .string(token), "rawNonce": .string(nonce)]
        if let code { members["authorizationCode"] = .string(code) }
        return .object(members)
    }

    static func appleIdentity(_ broker: InProcessBroker, _ subject: String) async throws -> Identity? {
        await broker.store.account(provider: ProviderID("apple"), subject: subject)?.identity(ProviderID("apple"))
    }

    @Test func aCodeIsExchangedAndTheRefreshTokenKeptSealed() async throws {
        let fixture = try await Self.start()
        let broker = fixture.broker
        let code = broker.stubs.appleAuth.issueCode(subject: "a-code-1")
        let session = await broker.post("/v1/signin/apple", try Self.body(broker, subject: "a-code-1", code: code))
        #expect(session.status == 201)
        let refresh = try #require(broker.stubs.appleAuth.issuedRefreshTokens.first)
        let sealed = try #require(try await Self.appleIdentity(broker, "a-code-1")?.providerToken)
        #expect(!sealed.contains(refresh))
        #expect(try fixture.cipher.open(sealed, context: "provider-token:apple:a-code-1") == refresh)
        // The session body never shows the token, nor that one is held.
        #expect(!String(decoding: session.body, as: UTF8.self).contains(refresh))
        #expect(session.json?["user"]?["identities"]?.arrayValue?.first?["providerToken"] == nil)
    }

    @Test(arguments: ["unknown", "another user's", "refusing"])
    func aRefusedCodeIs401AndStoresNothing(_ kind: String) async throws {
        let fixture = try await Self.start()
        let broker = fixture.broker
        let code: String
        switch kind {
        case "unknown": code = "c-never-issued.0.stub"
        case "another user's": code = broker.stubs.appleAuth.issueCode(subject: "someone-else")
        default:
            code = broker.stubs.appleAuth.issueCode(subject: "a-refused")
            broker.stubs.appleAuth.setFault(.refusing)
        }
        let body = try Self.body(broker, subject: "a-refused", code: code)
        let refused = await broker.post("/v1/signin/apple", body)
        #expect(refused.status == 401)
        #expect(refused.errorCode == "INVALID_TOKEN")
        let stored = try await Self.appleIdentity(broker, "a-refused")
        #expect(stored == nil)
        #expect(broker.stubs.appleAuth.issuedRefreshTokens.isEmpty || kind == "another user's")
        // The identity token was not consumed: with a good code it signs in.
        broker.stubs.appleAuth.setFault(.none)
        let good = broker.stubs.appleAuth.issueCode(subject: "a-refused")
        var retry = body
        if case .object(var members) = retry {
            members["authorizationCode"] = .string(good)
            retry = .object(members)
        }
        #expect(await broker.post("/v1/signin/apple", retry).status == 201)
    }

    @Test func appleDownIs503AndStoresNothing() async throws {
        let fixture = try await Self.start()
        let broker = fixture.broker
        broker.stubs.appleAuth.setFault(.down)
        let code = broker.stubs.appleAuth.issueCode(subject: "a-down")
        let down = await broker.post("/v1/signin/apple", try Self.body(broker, subject: "a-down", code: code))
        #expect(down.status == 503)
        #expect(down.errorCode == "PROVIDER_UNAVAILABLE")
        let stored = try await Self.appleIdentity(broker, "a-down")
        #expect(stored == nil)
        #expect(broker.stubs.appleAuth.tokenCallCount == 1)
    }

    @Test func aNewerCodeReplacesTheStoredTokenOnSignInAndOnLink() async throws {
        let fixture = try await Self.start()
        let broker = fixture.broker
        let first = await broker.post(
            "/v1/signin/apple",
            try Self.body(broker, subject: "a-newer", code: broker.stubs.appleAuth.issueCode(subject: "a-newer")))
        #expect(first.status == 201)
        let held = try #require(try await Self.appleIdentity(broker, "a-newer")?.providerToken)
        // Signing in without a code keeps it.
        #expect(await broker.post("/v1/signin/apple", try Self.body(broker, subject: "a-newer", code: nil)).status == 200)
        #expect(try await Self.appleIdentity(broker, "a-newer")?.providerToken == held)
        // A sign-in with a newer code replaces it.
        let again = await broker.post(
            "/v1/signin/apple",
            try Self.body(broker, subject: "a-newer", code: broker.stubs.appleAuth.issueCode(subject: "a-newer")))
        #expect(again.status == 200)
        let second = try #require(try await Self.appleIdentity(broker, "a-newer")?.providerToken)
        #expect(try fixture.cipher.open(second, context: "provider-token:apple:a-newer")
            == broker.stubs.appleAuth.issuedRefreshTokens.last)
        // So does a link with a code.
        let idToken = try #require(again.json?["idToken"]?.stringValue)
        let linked = await broker.post(
            "/v1/me/identities/apple",
            try Self.body(broker, subject: "a-newer", code: broker.stubs.appleAuth.issueCode(subject: "a-newer")),
            headers: ["Authorization": "Bearer " + idToken])
        #expect(linked.status == 200)
        let third = try #require(try await Self.appleIdentity(broker, "a-newer")?.providerToken)
        #expect(try fixture.cipher.open(third, context: "provider-token:apple:a-newer")
            == broker.stubs.appleAuth.issuedRefreshTokens.last)
        #expect(broker.stubs.appleAuth.issuedRefreshTokens.count == 3)
    }

    @Test func aDeletionRevokesTheTokenThroughTheOutboxExactlyOnce() async throws {
        let fixture = try await Self.start()
        let broker = fixture.broker
        let session = await broker.post(
            "/v1/signin/apple",
            try Self.body(broker, subject: "a-delete", code: broker.stubs.appleAuth.issueCode(subject: "a-delete")))
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)
        let idToken = try #require(session.json?["idToken"]?.stringValue)
        let refresh = try #require(broker.stubs.appleAuth.issuedRefreshTokens.first)
        broker.stubs.appleAuth.setFault(.down)
        #expect(await broker.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer " + idToken]).status == 204)
        let queued = await broker.store.outboxJobs(uid: AccountID(uid), limit: 10).filter { $0.kind == .appleRevoke }
        #expect(queued.count == 1)
        #expect(queued.first?.secret == true)
        #expect(queued.first?.sealed == true)
        let atRest = String(decoding: queued.first?.payload ?? [], as: UTF8.self)
        #expect(!atRest.contains(refresh))

        let worker = OutboxWorker(store: broker.store, clock: fixture.clock, cipher: fixture.cipher)
        for (kind, handler) in broker.services.providers.outboxHandlers { await worker.register(kind, handler) }
        #expect(try await worker.runOnce() == 1)
        #expect(broker.stubs.appleAuth.revokedTokens.isEmpty)
        broker.stubs.appleAuth.setFault(.none)
        fixture.clock.advance(by: 2)
        #expect(try await worker.runOnce() == 1)
        #expect(broker.stubs.appleAuth.revokedTokens == [refresh])
        let done = try #require(await broker.store.outboxJobs(uid: AccountID(uid), limit: 10).first { $0.kind == .appleRevoke })
        #expect(done.state == .delivered)
        #expect(done.payload.isEmpty)
        fixture.clock.advance(by: 600)
        #expect(try await worker.runOnce() == 0)
        #expect(broker.stubs.appleAuth.revokeCallCount == 2)
    }

    @Test func anAccountWithoutAnAppleTokenQueuesNoRevocation() async throws {
        let fixture = try await Self.start()
        let broker = fixture.broker
        let session = await broker.post("/v1/signin/apple", try Self.body(broker, subject: "a-plain", code: nil))
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)
        let deleted = await broker.request(
            "DELETE", "/admin/v1/users/\(uid)", headers: ["Authorization": "Bearer " + Self.adminToken])
        #expect(deleted.status == 204)
        #expect(await broker.store.outboxJobs(uid: AccountID(uid), limit: 10).isEmpty)
    }

    @Test(arguments: ["no key", "bad team id", "unreadable key file", "not a P-256 key"])
    func aBadClientSecretIsRefusedAtStart(_ kind: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apple-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var keyFile = try StubProviders().appleAuth.writeKeyFile(into: directory)
        var cipher: OutboxCipher? = OutboxCipher(key: try AESGCMKey(bytes: SecureRandom.bytes(32)))
        var document = Self.withClientSecret(StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9"), keyFile: keyFile)
        var field = "providers.apple.clientSecret"
        switch kind {
        case "no key": cipher = nil
        case "bad team id":
            document = Self.withClientSecret(document, keyFile: keyFile)
            if case .object(var m) = document, case .object(var p)? = m["providers"], case .object(var a)? = p["apple"],
                case .object(var secret)? = a["clientSecret"]
            {
                secret["teamId"] = "team"
                a["clientSecret"] = .object(secret)
                p["apple"] = .object(a)
                m["providers"] = .object(p)
                document = .object(m)
            }
            field += ".teamId"
        case "unreadable key file":
            keyFile = directory.appendingPathComponent("missing.p8").path
            document = Self.withClientSecret(document, keyFile: keyFile)
            field += ".privateKeyFile"
        default:
            try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: keyFile))
            field += ".privateKeyFile"
        }
        let config = try BrokerConfig(parsing: document.serialized(), environment: [:], sections: FirebaseModule.configSections)
        let context = ProviderContext(
            httpClient: ScriptedHTTPClient { _ in throw HTTPClientError(.connectionFailed) }, clock: SystemClock(),
            metrics: Metrics(), logger: .disabled, clockSkew: 60, allowInsecureURLs: true, cipher: cipher)
        do {
            _ = try ProviderRegistry(config: config, catalog: .builtIn, context: context)
            Issue.record("a bad clientSecret was accepted")
        } catch let error as ConfigError {
            #expect(error.field == field)
            #expect(!error.message.contains("PRIVATE KEY"))
        }
    }
}

/// The admin user view: whether an Apple token is held (never the token), and the outbox's pending calls.
@Suite struct AdminUserViewLifecycleTests {
    @Test func theViewShowsATokenIsHeldAndThePendingCallsNeverTheToken() async throws {
        let fixture = try await AppleCodeExchangeTests.start()
        let broker = fixture.broker
        let session = await broker.post(
            "/v1/signin/apple",
            try AppleCodeExchangeTests.body(broker, subject: "a-view", code: broker.stubs.appleAuth.issueCode(subject: "a-view")))
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)
        let refresh = try #require(broker.stubs.appleAuth.issuedRefreshTokens.first)
        let headers = ["Authorization": "Bearer " + AppleCodeExchangeTests.adminToken]
        let view = await broker.get("/admin/v1/users/\(uid)", headers: headers)
        #expect(view.status == 200)
        #expect(view.json?["identities"]?.arrayValue?.first?["providerTokenHeld"] == .bool(true))
        #expect(view.json?["pendingOutbox"]?.arrayValue?.isEmpty == true)
        let sealed = try #require(try await AppleCodeExchangeTests.appleIdentity(broker, "a-view")?.providerToken)
        let text = String(decoding: view.body, as: UTF8.self)
        #expect(!text.contains(refresh))
        #expect(!text.contains(sealed))

        // A pending call (here a revocation of the user's Firebase sessions queued by hand) is listed.
        try await broker.store.enqueue([FirebaseRevocation.job(uid: AccountID(uid), at: fixture.clock.now)])
        let pending = await broker.get("/admin/v1/users/\(uid)", headers: headers)
        #expect(pending.json?["pendingOutbox"]?.arrayValue?.map { $0["kind"] } == [.string("firebase.revoke")])
        #expect(pending.json?["pendingOutbox"]?.arrayValue?.first?["payload"] == nil)
    }

}

/// The compatibility listener's v2 `accounts:revokeToken` (contract sections 10 and 11).
extension AppleCodeExchangeTests {

    /// A user signed in on the compatibility listener with an Apple identity token (no code): its ID token.
    static func listenerUser(_ broker: InProcessBroker, subject: String) async throws -> String {
        let nonce = "nonce-" + Hex.encode(SecureRandom.bytes(6))
        let token = try broker.stubs.idToken(
            "apple", claims: ["sub": .string(subject), "nonce": .string(Hex.encode(Digest.sha256(nonce)))])
        let signedIn = await broker.firebasePost(
            FirebaseEndpoints.legacyRelyingPartyPath + "/verifyAssertion?key=k",
            [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": .string("providerId=apple.com&id_token=\(token)&nonce=\(nonce)"),
            ])
        #expect(signedIn.status == 200)
        return try #require(signedIn.json?["idToken"]?.stringValue)
    }

    static func revokeToken(_ broker: InProcessBroker, _ body: JSONValue) async -> TestResponse {
        await broker.firebasePost(FirebaseEndpoints.identityToolkitV2Path + "/accounts:revokeToken?key=k", body)
    }

    /// `RevokeTokenRequest`'s body, as `Auth.revokeToken(withAuthorizationCode:)` sends it before a deletion: the
    /// code is exchanged at once and its refresh token revoked through the outbox.
    @Test func revokeTokenExchangesTheCodeAndRevokesItsTokenThroughTheOutbox() async throws {
        let fixture = try await Self.start()
        let broker = fixture.broker
        let idToken = try await Self.listenerUser(broker, subject: "a-revoke")
        let uid = try #require(await broker.store.account(provider: ProviderID("apple"), subject: "a-revoke")?.id)
        let answer = await Self.revokeToken(
            broker,
            [
                "providerId": "apple.com", "tokenType": "3", "idToken": .string(idToken),
                "token": .string(broker.stubs.appleAuth.issueCode(subject: "a-revoke")),
            ])
        #expect(answer.status == 200)
        #expect(answer.json == [:])
        let refresh = try #require(broker.stubs.appleAuth.issuedRefreshTokens.first)
        let queued = await broker.store.outboxJobs(uid: uid, limit: 10).filter { $0.kind == .appleRevoke }
        #expect(queued.count == 1 && queued.first?.secret == true && queued.first?.sealed == true)
        let atRest = String(decoding: queued.first?.payload ?? [], as: UTF8.self)
        #expect(!atRest.contains(refresh))
        let events = await broker.store.auditEvents(uid: uid, before: nil, limit: 10)
        #expect(events.contains { $0.action == .providerTokenRevoke && $0.provider == "apple" })

        let worker = OutboxWorker(store: broker.store, clock: fixture.clock, cipher: fixture.cipher)
        for (kind, handler) in broker.services.providers.outboxHandlers { await worker.register(kind, handler) }
        #expect(try await worker.runOnce() == 1)
        #expect(broker.stubs.appleAuth.revokedTokens == [refresh])
        // The account itself is untouched: the app deletes it next.
        #expect(await broker.store.account(id: uid) != nil)
    }

    @Test(arguments: [
        ("type", "OPERATION_NOT_ALLOWED"), ("another user's code", "INVALID_IDP_RESPONSE"),
        ("provider", "INVALID_PROVIDER_ID"), ("token", "INVALID_ID_TOKEN"), ("no code", "MISSING_TOKEN"),
    ])
    func aRefusedRevokeTokenQueuesNothing(_ kind: String, _ expected: String) async throws {
        let fixture = try await Self.start()
        let broker = fixture.broker
        let idToken = try await Self.listenerUser(broker, subject: "a-revoke-refused")
        let uid = try #require(
            await broker.store.account(provider: ProviderID("apple"), subject: "a-revoke-refused")?.id)
        var body: [String: JSONValue] = [
            "providerId": "apple.com", "tokenType": "3", "idToken": .string(idToken),
            "token": .string(broker.stubs.appleAuth.issueCode(subject: "a-revoke-refused")),
        ]
        switch kind {
        case "type": body["tokenType"] = "1"
        case "another user's code": body["token"] = .string(broker.stubs.appleAuth.issueCode(subject: "someone-else"))
        case "provider": body["providerId"] = "google.com"
        case "token": body["idToken"] = "not-a-token"
        default: body["token"] = nil
        }
        let refused = await Self.revokeToken(broker, .object(body))
        #expect(refused.status == 400)
        #expect(FirebaseLinkingTests.code(refused) == expected)
        #expect(await broker.store.outboxJobs(uid: uid, limit: 10).filter { $0.kind == .appleRevoke }.isEmpty)
        let events = await broker.store.auditEvents(uid: uid, before: nil, limit: 10)
        #expect(!events.contains { $0.action == .providerTokenRevoke })
    }
}
