import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerHTTP
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 15's passwordless sign-up over the native API: an account whose only way in is its passkey,
/// counted and audited as a sign-up; every refusal (status, code, nothing stored).
@Suite struct PasskeySignUpTests {
    typealias Bent = PasskeyTests.Bent

    /// The sign-up options for `body`, and the registration of `authenticator` answering them, bent by `ceremony`.
    static func signUp(
        _ broker: InProcessBroker, _ authenticator: inout TestAuthenticator, _ body: JSONValue = [:],
        _ ceremony: TestCeremony = TestCeremony(), name: String? = "Phone"
    ) async throws -> TestResponse {
        let options = await broker.post("/v1/signup/passkey/options", body)
        #expect(options.status == 200)
        let handleText = try #require(options.json?["publicKey"]?["user"]?["id"]?.stringValue)
        let handle = try #require(Base64URL.decode(handleText))
        let credential = try authenticator.register(
            challenge: try PasskeyTests.challenge(options), userHandle: handle, ceremony)
        var request: [String: JSONValue] = ["credential": credential]
        if let name { request["name"] = .string(name) }
        return await broker.post("/v1/signup/passkey", .object(request))
    }

    static func accounts(_ broker: InProcessBroker) async -> [Account] {
        await broker.store.listAccounts(afterUID: nil, limit: 100)
    }

    @Test func aSignUpMakesAnAccountWhoseOnlyWayInIsItsPasskey() async throws {
        let (broker, _) = try await PasskeyTests.start()
        let options = await broker.post(
            "/v1/signup/passkey/options", ["email": "new@example.com", "displayName": "New One"])
        #expect(options.status == 200)
        let publicKey = try #require(options.json?["publicKey"])
        #expect(publicKey["user"]?["name"] == "new@example.com")
        #expect(publicKey["user"]?["displayName"] == "New One")
        #expect(publicKey["excludeCredentials"] == [])
        #expect(publicKey["authenticatorSelection"]?["residentKey"] == "required")
        #expect(await Self.accounts(broker).isEmpty)

        var authenticator = try TestAuthenticator()
        let handleText = try #require(publicKey["user"]?["id"]?.stringValue)
        let handle = try #require(Base64URL.decode(handleText))
        let credential = try authenticator.register(
            challenge: try PasskeyTests.challenge(options), userHandle: handle)
        let created = await broker.post("/v1/signup/passkey", ["credential": credential, "name": "Phone"])
        #expect(created.status == 201)
        #expect(created.json?["isNewUser"] == true)
        let uid = AccountID(try #require(created.json?["user"]?["uid"]?.stringValue))
        let claims = try JWT(parsing: try #require(created.json?["idToken"]?.stringValue)).claims
        #expect(claims["firebase"]?["sign_in_provider"] == "passkey" || claims["sign_in_provider"] == "passkey")

        let account = try #require(await broker.store.account(id: uid))
        #expect(account.email == "new@example.com" && !account.emailVerified)
        #expect(account.displayName == "New One")
        #expect(account.identities.isEmpty && account.password?.hash == nil && !account.isAnonymous)
        let passkeys = await broker.store.passkeys(uid: uid)
        #expect(passkeys.map(\.id) == [Base64URL.encode(authenticator.credentialID)])
        #expect(passkeys.first?.name == "Phone")
        #expect(passkeys.first?.userHandle == Base64URL.encode(handle))
        #expect(await PasskeyTests.events(broker, .signUp).map(\.uid) == [uid])
        #expect(await PasskeyTests.events(broker, .passkeyRegister).map(\.uid) == [uid])
        let samples = SignInFlowTests.samples(broker, "broker_signups_total")
        #expect(samples["{provider=\"passkey\",outcome=\"created\"}"] == 1)

        // The passkey signs the new account in, and its session works.
        let (signIn, _) = try await PasskeyTests.signIn(broker, &authenticator)
        #expect(signIn.status == 200)
        #expect(signIn.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        let listed = await broker.get("/v1/me/passkeys", headers: PasskeyTests.bearer(created))
        #expect(listed.status == 200 && listed.json?["passkeys"]?.arrayValue?.count == 1)
        // Its only passkey is its last way in.
        let id = Base64URL.encode(authenticator.credentialID)
        let removal = await broker.request("DELETE", "/v1/me/passkeys/\(id)", headers: PasskeyTests.bearer(created))
        #expect(removal.status == 400 && removal.errorCode == "LAST_IDENTITY")
        #expect(await broker.store.passkeys(uid: uid).count == 1)
    }

    @Test func aSignUpWithoutAnEmailHasNone() async throws {
        let (broker, _) = try await PasskeyTests.start()
        var authenticator = try TestAuthenticator()
        let created = try await Self.signUp(broker, &authenticator, ["displayName": "  "], name: nil)
        #expect(created.status == 201)
        let uid = AccountID(try #require(created.json?["user"]?["uid"]?.stringValue))
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.email == nil && account.displayName == nil)
        #expect(await broker.store.passkeys(uid: uid).first?.name == nil)
        // An empty body asks for the options as `{}` does.
        let options = await broker.request("POST", "/v1/signup/passkey/options")
        #expect(options.status == 200 && options.json?["publicKey"]?["challenge"]?.stringValue != nil)
    }

    @Test(arguments: PasskeyTests.registrationRefusals)
    func aSignUpThatDoesNotVerifyIsRefusedAndStoresNothing(_ bent: Bent) async throws {
        let (broker, _) = try await PasskeyTests.start()
        var authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        bent.bend(&ceremony)
        let refused = try await Self.signUp(broker, &authenticator, ["email": "bent@example.com"], ceremony)
        #expect(refused.status == 400 && refused.errorCode == "INVALID_PASSKEY")
        #expect(await Self.accounts(broker).isEmpty)
        #expect(await PasskeyTests.events(broker, .passkeyRegister).isEmpty)
        let refusals = await PasskeyTests.events(broker, .signUp)
        #expect(refusals.map(\.outcome) == ["INVALID_PASSKEY"])
        let samples = SignInFlowTests.samples(broker, "broker_signups_total")
        #expect(samples["{provider=\"passkey\",outcome=\"INVALID_PASSKEY\"}"] == 1)
    }

    @Test func aSignUpChallengeWorksOnceAndOnlyForASignUp() async throws {
        let (broker, _) = try await PasskeyTests.start()
        var authenticator = try TestAuthenticator()
        let options = await broker.post("/v1/signup/passkey/options", [:])
        let credential = try authenticator.register(challenge: try PasskeyTests.challenge(options), userHandle: [1])
        #expect(await broker.post("/v1/signup/passkey", ["credential": credential]).status == 201)
        let replay = await broker.post("/v1/signup/passkey", ["credential": credential])
        #expect(replay.status == 400 && replay.errorCode == "INVALID_PASSKEY")
        // A sign-in challenge does not sign up.
        var other = try TestAuthenticator()
        let signInOptions = await broker.post("/v1/signin/passkey/options", [:])
        let wrong = try other.register(challenge: try PasskeyTests.challenge(signInOptions), userHandle: [2])
        let refused = await broker.post("/v1/signup/passkey", ["credential": wrong])
        #expect(refused.status == 400 && refused.errorCode == "INVALID_PASSKEY")
        #expect(await Self.accounts(broker).count == 1)
    }

    @Test func anExpiredSignUpChallengeIsRefused() async throws {
        let (broker, clock) = try await PasskeyTests.start()
        var authenticator = try TestAuthenticator()
        let options = await broker.post("/v1/signup/passkey/options", [:])
        let credential = try authenticator.register(challenge: try PasskeyTests.challenge(options), userHandle: [1])
        clock.advance(by: PasskeyService.challengeLifetime + 1)
        let refused = await broker.post("/v1/signup/passkey", ["credential": credential])
        #expect(refused.status == 400 && refused.errorCode == "INVALID_PASSKEY")
        #expect(await Self.accounts(broker).isEmpty)
    }

    @Test func aCredentialRegisteredAlreadyIsRefused() async throws {
        let (broker, _) = try await PasskeyTests.start()
        var authenticator = try TestAuthenticator()
        let first = try await Self.signUp(broker, &authenticator)
        #expect(first.status == 201)
        let again = try await Self.signUp(broker, &authenticator)
        #expect(again.status == 409 && again.errorCode == "PASSKEY_EXISTS")
        #expect(await Self.accounts(broker).count == 1)
        #expect(await PasskeyTests.events(broker, .passkeyRegister).count == 1)
    }

    @Test func anEmailTakenOrInvalidIsRefused() async throws {
        let (broker, _) = try await PasskeyTests.start()
        let (_, owner) = try await PasskeyTests.signUp(broker, "taken@example.com")
        let taken = await broker.post("/v1/signup/passkey/options", ["email": "taken@example.com"])
        #expect(taken.status == 409 && taken.errorCode == "EMAIL_EXISTS")
        let invalid = await broker.post("/v1/signup/passkey/options", ["email": "not-an-email"])
        #expect(invalid.status == 400 && invalid.errorCode == "INVALID_EMAIL")
        // Taken between the options and the registration.
        var authenticator = try TestAuthenticator()
        let options = await broker.post("/v1/signup/passkey/options", ["email": "later@example.com"])
        let handleText = try #require(options.json?["publicKey"]?["user"]?["id"]?.stringValue)
        let handle = try #require(Base64URL.decode(handleText))
        let credential = try authenticator.register(
            challenge: try PasskeyTests.challenge(options), userHandle: handle)
        _ = try await PasskeyTests.signUp(broker, "later@example.com")
        let raced = await broker.post("/v1/signup/passkey", ["credential": credential])
        #expect(raced.status == 409 && raced.errorCode == "EMAIL_EXISTS")
        #expect(await Self.accounts(broker).count == 2)
        #expect(await broker.store.passkeys(uid: owner).isEmpty)
        #expect(await broker.store.passkey(id: Base64URL.encode(authenticator.credentialID)) == nil)
    }

    @Test func aBadBodyOrDisabledPasskeysAreRefused() async throws {
        let (broker, _) = try await PasskeyTests.start()
        let missing = await broker.post("/v1/signup/passkey", ["name": "x"])
        #expect(missing.status == 400 && missing.errorCode == "INVALID_REQUEST")
        let unknown = await broker.post("/v1/signup/passkey/options", ["password": "x"])
        #expect(unknown.status == 400 && unknown.errorCode == "INVALID_REQUEST")
        var authenticator = try TestAuthenticator()
        let long = String(repeating: "n", count: PasskeyService.maximumNameLength + 1)
        let tooLong = try await Self.signUp(broker, &authenticator, name: long)
        #expect(tooLong.status == 400 && tooLong.errorCode == "INVALID_REQUEST")
        #expect(await Self.accounts(broker).isEmpty)

        let (disabled, _) = try await PasskeyTests.start(enabled: false)
        let options = await disabled.post("/v1/signup/passkey/options", [:])
        #expect(options.status == 404 && options.errorCode == "PROVIDER_NOT_ENABLED")
        let signUp = await disabled.post("/v1/signup/passkey", ["credential": ["id": "x"]])
        #expect(signUp.status == 404 && signUp.errorCode == "PROVIDER_NOT_ENABLED")
        #expect(await Self.accounts(disabled).isEmpty)
    }

    @Test func beforeCreateIsAskedAndItsDenialStoresNothing() async throws {
        let file = try StubAppHooks.writeSecretFile()
        let broker = try await InProcessBroker.start { document in
            guard case .object(var members) = document else { return document }
            members["passkeys"] = ["enabled": true, "rpId": "localhost", "origins": ["http://localhost"]]
            members["hooks"] = [
                "beforeCreate": [
                    "url": .string(InProcessBroker.stubsBaseURL + SignInHookTests.create), "secretFile": .string(file),
                ]
            ]
            return .object(members)
        }
        broker.stubs.appHooks.script(
            SignInHookTests.create, StubAppHooks.Answer(body: ["deny": ["message": "No passkeys here."]]))
        var authenticator = try TestAuthenticator()
        let denied = try await Self.signUp(broker, &authenticator, ["email": "hook@example.com"])
        #expect(denied.status == 403 && denied.errorCode == "BLOCKED_BY_HOOK")
        #expect(await Self.accounts(broker).isEmpty)
        #expect(await broker.store.passkey(id: Base64URL.encode(authenticator.credentialID)) == nil)
        let call = try #require(broker.stubs.appHooks.calls.first?.body)
        #expect(call["type"] == "beforeCreate")
        #expect(call["credential"]?["provider"] == "passkey")
        #expect(call["user"]?["email"] == "hook@example.com")
        #expect(await PasskeyTests.events(broker, .signUp).map(\.outcome) == ["BLOCKED_BY_HOOK"])
    }

    @Test func moreSignUpsThanTheHourlyLimitFromOneAddressAreRefusedUntilTheHourPasses() async throws {
        // Between two milliseconds, rounded up when stored: the wait is still at most the hour.
        let clock = ManualClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 0.0006))
        let broker = try await InProcessBroker.start(clock: clock) { document in
            guard case .object(var members) = document else { return document }
            members["passkeys"] = [
                "enabled": true, "rpId": "localhost", "origins": ["http://localhost"], "maxSignUpsPerAddressPerHour": 2,
            ]
            return .object(members)
        }
        // The in-process app over the same services, with the client address a socket would give.
        let app = BrokerApp(services: broker.services, surfaces: BrokerApp.mainSurfaces(broker.services))
        @Sendable func post(_ path: String, _ body: JSONValue, from address: String) async -> HTTPResponse {
            await app.handle(
                HTTPRequest(
                    method: "POST", path: path, headers: ["Content-Type": "application/json"], body: body.serialized(),
                    peerAddress: address))
        }
        func signUp(from address: String) async throws -> (HTTPResponse, TestAuthenticator) {
            var authenticator = try TestAuthenticator()
            let options = await broker.post("/v1/signup/passkey/options", [:])
            let credential = try authenticator.register(
                challenge: try PasskeyTests.challenge(options), userHandle: [1, 2])
            return (await post("/v1/signup/passkey", ["credential": credential], from: address), authenticator)
        }
        #expect(try await signUp(from: "192.0.2.1").0.status == 201)
        #expect(try await signUp(from: "192.0.2.1").0.status == 201)
        let (refused, authenticator) = try await signUp(from: "192.0.2.1")
        #expect(refused.status == 429)
        #expect(JSONValue.parse(refused.body)?["error"]?["code"] == "TOO_MANY_ATTEMPTS")
        let retryAfter = try #require(
            refused.headers.first { $0.name.lowercased() == "retry-after" }.flatMap { Int($0.value) })
        // The hour from the first sign-up, never a second more.
        #expect(retryAfter == 3600)
        #expect(await Self.accounts(broker).count == 2)
        #expect(await broker.store.passkey(id: Base64URL.encode(authenticator.credentialID)) == nil)
        #expect(
            await PasskeyTests.events(broker, .signUp).compactMap(\.outcome).sorted() == [
                "TOO_MANY_ATTEMPTS", "created", "created",
            ])
        #expect(
            SignInFlowTests.samples(broker, "broker_signups_total")[
                "{provider=\"passkey\",outcome=\"TOO_MANY_ATTEMPTS\"}"] == 1)
        // Another address still signs up; guests are counted apart.
        #expect(try await signUp(from: "192.0.2.2").0.status == 201)
        #expect(await Self.accounts(broker).count == 3)
        // An hour later the first address signs up again.
        clock.advance(by: 3601)
        #expect(try await signUp(from: "192.0.2.1").0.status == 201)
        #expect(await Self.accounts(broker).count == 4)
    }
}
