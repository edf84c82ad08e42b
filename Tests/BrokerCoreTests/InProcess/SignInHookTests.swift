import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The app's blocking hooks over HTTP (contract section 16), against the stubs' app: each call signed, `beforeCreate`
/// only when the sign-in creates, then `beforeSignIn`, never on a refresh or a renewal; each answer (go on, amend,
/// deny) and each failure policy, with what was stored after.
@Suite struct SignInHookTests {
    static let create = StubAppHooks.hookPath("beforeCreate")
    static let signIn = StubAppHooks.hookPath("beforeSignIn")

    /// A broker whose hooks are the stubs' app; `onFailure` for both; `serviceAccount` to mint custom tokens;
    /// `anonymous` to let guests sign in.
    static func start(
        onFailure: String = "deny", serviceAccount: Bool = false, anonymous: Bool = false
    ) async throws -> InProcessBroker {
        let file = try StubAppHooks.writeSecretFile()
        return try await InProcessBroker.start(serviceAccount: serviceAccount) { document in
            guard case .object(var members) = document else { return document }
            func hook(_ path: String) -> JSONValue {
                [
                    "url": .string(InProcessBroker.stubsBaseURL + path), "secretFile": .string(file),
                    "onFailure": .string(onFailure),
                ]
            }
            members["hooks"] = ["beforeCreate": hook(create), "beforeSignIn": hook(signIn)]
            if anonymous { members["anonymous"] = ["enabled": true] }
            return .object(members)
        }
    }

    static func signUp(_ broker: InProcessBroker, _ email: String) async -> TestResponse {
        await broker.post("/v1/signup", ["email": .string(email), "password": "secret-123"])
    }

    static func signInWithPassword(_ broker: InProcessBroker, _ email: String) async -> TestResponse {
        await broker.post("/v1/signin/password", ["email": .string(email), "password": "secret-123"])
    }

    static func claims(of token: String) throws -> [String: JSONValue] {
        let parts = token.split(separator: ".")
        let payload = try #require(Base64URL.decode(String(parts[1])))
        return try #require(JSONValue.parse(payload)?.objectValue)
    }

    static func auditOutcomes(_ broker: InProcessBroker, _ action: AuditAction) async -> [String] {
        await broker.store.auditEvents(uid: nil, before: nil, limit: 100).filter { $0.action == action }.map(\.outcome)
    }

    @Test func aSignUpAsksBeforeCreateThenBeforeSignInSignedAndTellsOfTheCredential() async throws {
        let broker = try await Self.start()
        let response = await Self.signUp(broker, "ann@example.com")
        #expect(response.status == 201)
        let calls = broker.stubs.appHooks.calls
        #expect(calls.map(\.path) == [Self.create, Self.signIn])
        #expect(calls.allSatisfy { $0.verified })
        #expect(Set(calls.compactMap { $0.headers["webhook-id"] }).count == 2)
        let first = try #require(calls.first?.body)
        #expect(first["type"]?.stringValue == "beforeCreate")
        #expect(first["user"]?["uid"] == .null)
        #expect(first["user"]?["email"]?.stringValue == "ann@example.com")
        #expect(first["credential"]?["provider"]?.stringValue == "password")
        #expect(first["credential"]?["email"]?.stringValue == "ann@example.com")
        #expect(first["time"]?.stringValue != nil && first["client"]?.objectValue != nil)
        #expect(calls.last?.body?["type"]?.stringValue == "beforeSignIn")

        // A returning sign-in asks beforeSignIn alone, told of the stored account.
        #expect(await Self.signInWithPassword(broker, "ann@example.com").status == 200)
        let again = broker.stubs.appHooks.calls.dropFirst(2)
        #expect(again.map(\.path) == [Self.signIn])
        #expect(again.first?.body?["user"]?["uid"] == response.json?["user"]?["uid"])
    }

    @Test func aRefreshAndARenewalAskNoHook() async throws {
        let broker = try await Self.start()
        let signedUp = await Self.signUp(broker, "bo@example.com")
        let refreshToken = try #require(signedUp.json?["refreshToken"]?.stringValue)
        let idToken = try #require(signedUp.json?["idToken"]?.stringValue)
        let before = broker.stubs.appHooks.calls.count
        #expect(await broker.post("/v1/token", ["refreshToken": .string(refreshToken)]).status == 200)
        // A link renews nothing here but is a change of a signed-in account: no hook either.
        let google = try broker.stubs.idToken("google", claims: ["sub": "bo-g", "email": "bo@example.com"])
        let linked = await broker.post(
            "/v1/me/identities/google", ["idToken": .string(google)], headers: ["Authorization": "Bearer \(idToken)"])
        #expect(linked.status == 200)
        #expect(broker.stubs.appHooks.calls.count == before)
    }

    @Test func aDenyIsRefusedWithTheAppsMessageStoresNothingAndIsCountedAndAuditedOnce() async throws {
        let broker = try await Self.start()
        broker.stubs.appHooks.script(
            Self.create, StubAppHooks.Answer(body: ["deny": ["message": "Only example.org addresses."]]))
        let response = await Self.signUp(broker, "cy@example.com")
        #expect(response.status == 403)
        #expect(response.errorCode == "BLOCKED_BY_HOOK")
        #expect(response.json?["error"]?["message"]?.stringValue == "Only example.org addresses.")
        #expect(await broker.store.account(email: "cy@example.com") == nil)
        #expect(broker.stubs.appHooks.calls.map(\.path) == [Self.create])
        #expect(
            SignInFlowTests.samples(broker, "broker_signups_total")
                == ["{provider=\"password\",outcome=\"BLOCKED_BY_HOOK\"}": 1])
        #expect(await Self.auditOutcomes(broker, .signUp) == ["BLOCKED_BY_HOOK"])
    }

    @Test func aDeniedReturningSignInMakesNoSession() async throws {
        let broker = try await Self.start()
        let uid = try #require(await Self.signUp(broker, "di@example.com").json?["user"]?["uid"]?.stringValue)
        broker.stubs.appHooks.script(Self.signIn, StubAppHooks.Answer(body: ["deny": ["message": "Banned device."]]))
        let response = await Self.signInWithPassword(broker, "di@example.com")
        #expect(response.status == 403 && response.errorCode == "BLOCKED_BY_HOOK")
        let live = await broker.store.sessionSummary(accountID: AccountID(uid), at: broker.services.clock.now).live
        #expect(live == 1)
        #expect(await Self.auditOutcomes(broker, .signIn) == ["BLOCKED_BY_HOOK"])
    }

    @Test func anAmendmentIsStoredWithTheSignInAndReachesTheIDTokenAndTheCustomToken() async throws {
        let broker = try await Self.start(serviceAccount: true)
        broker.stubs.appHooks.script(Self.create, StubAppHooks.Answer(body: ["displayName": "Eve from the hook"]))
        broker.stubs.appHooks.script(
            Self.signIn,
            StubAppHooks.Answer(body: [
                "customClaims": ["role": "admin", "tenant": "t1"], "photoUrl": "https://img.example/e.png",
            ]))
        let response = await Self.signUp(broker, "eve@example.com")
        #expect(response.status == 201)
        #expect(response.json?["user"]?["displayName"]?.stringValue == "Eve from the hook")
        // beforeSignIn is told of what beforeCreate set.
        #expect(broker.stubs.appHooks.calls.last?.body?["user"]?["displayName"]?.stringValue == "Eve from the hook")
        let stored = try #require(await broker.store.account(email: "eve@example.com"))
        #expect(stored.displayName == "Eve from the hook")
        #expect(stored.photoURL == "https://img.example/e.png")
        #expect(JSONValue.parse(Array((stored.customClaims ?? "").utf8)) == ["role": "admin", "tenant": "t1"])
        let idToken = try #require(response.json?["idToken"]?.stringValue)
        let idClaims = try Self.claims(of: idToken)
        #expect(idClaims["role"]?.stringValue == "admin" && idClaims["tenant"]?.stringValue == "t1")
        let customToken = try #require(response.json?["customToken"]?.stringValue)
        let custom = try Self.claims(of: customToken)
        #expect(custom["claims"]?["role"]?.stringValue == "admin")
    }

    @Test func aHookThatDisablesTheAccountStoresItDisabledWithNoSession() async throws {
        let broker = try await Self.start()
        broker.stubs.appHooks.script(Self.create, StubAppHooks.Answer(body: ["disabled": true]))
        let response = await Self.signUp(broker, "fay@example.com")
        #expect(response.status == 403 && response.errorCode == "USER_DISABLED")
        let stored = try #require(await broker.store.account(email: "fay@example.com"))
        #expect(stored.disabled)
        #expect(await broker.store.sessionSummary(accountID: stored.id, at: broker.services.clock.now).live == 0)
    }

    struct FailureCase: Sendable, CustomTestStringConvertible {
        var name: String
        var answer: StubAppHooks.Answer
        var testDescription: String { name }
    }

    static let failures: [FailureCase] = [
        FailureCase(name: "a 500", answer: StubAppHooks.Answer(status: 500)),
        FailureCase(name: "a redirect", answer: StubAppHooks.Answer(status: 302)),
        FailureCase(name: "a body that is no object", answer: StubAppHooks.Answer(body: ["not", "an", "object"])),
        FailureCase(name: "a reserved claim", answer: StubAppHooks.Answer(body: ["customClaims": ["sub": "x"]])),
        // Claims the broker sets itself (contract section 16): `mfa` would forge the second-factor marker.
        FailureCase(name: "the mfa claim", answer: StubAppHooks.Answer(body: ["customClaims": ["mfa": "totp"]])),
        FailureCase(
            name: "the mfa_factor_id claim", answer: StubAppHooks.Answer(body: ["customClaims": ["mfa_factor_id": "f"]])
        ),
        FailureCase(name: "the sid claim", answer: StubAppHooks.Answer(body: ["customClaims": ["sid": "s"]])),
        FailureCase(name: "a photo that is no URL", answer: StubAppHooks.Answer(body: ["photoUrl": "not a url"])),
    ]

    @Test(arguments: failures)
    func aFailureWithOnFailureDenyIsHookUnavailableAndStoresNothing(_ failure: FailureCase) async throws {
        let broker = try await Self.start(onFailure: "deny")
        broker.stubs.appHooks.script(Self.create, failure.answer)
        let response = await Self.signUp(broker, "gil@example.com")
        #expect(response.status == 503)
        #expect(response.errorCode == "HOOK_UNAVAILABLE")
        #expect(response.headers["retry-after"] != nil)
        #expect(await broker.store.account(email: "gil@example.com") == nil)
        #expect(await Self.auditOutcomes(broker, .signUp) == ["HOOK_UNAVAILABLE"])
    }

    @Test(arguments: failures)
    func aFailureWithOnFailureAllowGoesOnAsIfEmptyAndIsLogged(_ failure: FailureCase) async throws {
        let broker = try await Self.start(onFailure: "allow")
        broker.stubs.appHooks.script(Self.create, failure.answer)
        let response = await Self.signUp(broker, "hal@example.com")
        #expect(response.status == 201)
        let stored = try #require(await broker.store.account(email: "hal@example.com"))
        #expect(stored.customClaims == nil && stored.photoURL == nil)
        #expect(broker.logs.lines.contains { $0.contains("the beforeCreate hook failed") })
        #expect(
            SignInFlowTests.samples(broker, "broker_hook_calls_total")
                == [
                    "{hook=\"beforeCreate\",outcome=\"failed\"}": 1, "{hook=\"beforeSignIn\",outcome=\"answered\"}": 1,
                ])
    }

    @Test func theListenerAnswersADenyAsABlockingFunctionError() async throws {
        let broker = try await Self.start()
        broker.stubs.appHooks.script(Self.create, StubAppHooks.Answer(body: ["deny": ["message": "No."]]))
        let response = await broker.firebasePost(
            FirebaseEndpoints.identityToolkitPath + "/accounts:signUp?key=k",
            ["email": "ivy@example.com", "password": "secret-123", "returnSecureToken": true])
        #expect(response.status == 400)
        #expect(response.json?["error"]?["message"]?.stringValue?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE") == true)
        #expect(await broker.store.account(email: "ivy@example.com") == nil)
    }

    // MARK: - The call itself

    /// A hook that does not answer in time: the request carried the hook's timeout, and `onFailure` decides.
    @Test func aTimeoutFollowsTheFailurePolicy() async throws {
        let secret = try #require(WebhookSecret(text: StubAppHooks.secret))
        let client = ScriptedHTTPClient { _ in throw HTTPClientError(.timeout) }
        let decision = SignInDecision(
            account: nil, change: .created, credential: SignInCredential(provider: "password", email: "j@example.com"))
        for policy in [HookFailurePolicy.deny, .allow] {
            let hooks = WebhookSignInHooks(
                settings: HookSettings(
                    beforeSignIn: HookEndpoint(
                        url: "https://app.example/in", secret: secret, timeout: 0.25, onFailure: policy)),
                client: client, clock: SystemClock(), logger: .disabled, metrics: Metrics())
            if policy == .deny {
                let error = await #expect(throws: SignInError.self) {
                    _ = try await hooks.before(decision, method: "password", context: SignInContext(requestID: "r"))
                }
                #expect(error?.refusal == .hookUnavailable)
            } else {
                let amendment = try await hooks.before(
                    decision, method: "password", context: SignInContext(requestID: "r"))
                #expect(amendment == SignInAmendment())
            }
        }
        #expect(client.requests.map(\.timeout) == [0.25, 0.25])
        #expect(client.requests.allSatisfy { $0.method == "POST" && $0.url == "https://app.example/in" })
        #expect(client.requests.allSatisfy { $0.headers.contains { $0.name == "webhook-signature" } })
    }
}
