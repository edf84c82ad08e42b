import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract sections 13 and 15: a passwordless sign-up with a guest's ID token upgrades that guest in place (the
/// uid, sessions and custom claims stay), as `POST /v1/signup` does; every refusal leaves the guest a guest with no
/// passkey, counted and audited once.
@Suite struct PasskeyGuestUpgradeTests {
    typealias Bent = PasskeyTests.Bent

    /// A guest's session on a broker with passkeys and guests.
    static func guest() async throws -> (InProcessBroker, TestResponse, AccountID) {
        let (broker, _) = try await PasskeyTests.start(guests: true)
        let guest = await broker.post("/v1/signin/anonymous", [:])
        #expect(guest.status == 201)
        return (broker, guest, AccountID(try #require(guest.json?["user"]?["uid"]?.stringValue)))
    }

    /// The sign-up options asked with `optionsHeaders`, and the registration of `authenticator` answering them,
    /// bent by `ceremony`, posted with `headers`.
    static func signUp(
        _ broker: InProcessBroker, _ authenticator: inout TestAuthenticator, _ body: JSONValue = [:],
        _ ceremony: TestCeremony = TestCeremony(), optionsHeaders: [String: String], headers: [String: String]
    ) async throws -> TestResponse {
        let options = await broker.post("/v1/signup/passkey/options", body, headers: optionsHeaders)
        #expect(options.status == 200)
        let handleText = try #require(options.json?["publicKey"]?["user"]?["id"]?.stringValue)
        let handle = try #require(Base64URL.decode(handleText))
        let credential = try authenticator.register(
            challenge: try PasskeyTests.challenge(options), userHandle: handle, ceremony)
        return await broker.post("/v1/signup/passkey", ["credential": credential, "name": "Phone"], headers: headers)
    }

    /// The guest is still one, with no email and no passkey, and no passkey of `authenticator` is stored.
    static func expectStillAGuest(
        _ broker: InProcessBroker, _ uid: AccountID, _ authenticator: TestAuthenticator
    ) async throws {
        let stored = try #require(await broker.store.account(id: uid))
        #expect(stored.isAnonymous && stored.email == nil)
        #expect(await broker.store.passkeys(uid: uid).isEmpty)
        #expect(await broker.store.passkey(id: Base64URL.encode(authenticator.credentialID)) == nil)
        #expect(await PasskeyTests.events(broker, .passkeyRegister).isEmpty)
    }

    @Test func aSignUpWithTheGuestsTokenUpgradesItInPlace() async throws {
        let (broker, guest, uid) = try await Self.guest()
        _ = try await broker.store.update(id: uid) { $0.customClaims = #"{"plan":"cart"}"# }
        var authenticator = try TestAuthenticator()
        let upgraded = try await Self.signUp(
            broker, &authenticator, ["email": "guest@example.com", "displayName": "G"],
            optionsHeaders: PasskeyTests.bearer(guest), headers: PasskeyTests.bearer(guest))
        #expect(upgraded.status == 200)
        #expect(upgraded.json?["isNewUser"] == false)
        #expect(upgraded.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        #expect(upgraded.json?["user"]?["isAnonymous"] == false)
        let claims = try JWT(parsing: try #require(upgraded.json?["idToken"]?.stringValue)).claims
        #expect(claims["sub"]?.stringValue == uid.rawValue)
        #expect(claims["sign_in_provider"] == "passkey")
        #expect(claims["plan"] == "cart")

        let stored = try #require(await broker.store.account(id: uid))
        #expect(!stored.isAnonymous && stored.email == "guest@example.com" && !stored.emailVerified)
        #expect(stored.displayName == "G" && stored.customClaims == #"{"plan":"cart"}"#)
        #expect(stored.identities.isEmpty && stored.password?.hash == nil)
        let passkeys = await broker.store.passkeys(uid: uid)
        #expect(passkeys.map(\.id) == [Base64URL.encode(authenticator.credentialID)])
        #expect(passkeys.first?.name == "Phone")
        #expect(await PasskeySignUpTests.accounts(broker).count == 1)
        // Counted and audited once, as the upgrade by `POST /v1/signup` is.
        #expect(
            SignInFlowTests.samples(broker, "broker_signups_total") == [
                "{provider=\"passkey\",outcome=\"upgraded\"}": 1
            ])
        let signUps = await PasskeyTests.events(broker, .signUp)
        #expect(signUps.map(\.uid) == [uid] && signUps.map(\.outcome) == ["success"])
        #expect(await PasskeyTests.events(broker, .passkeyRegister).map(\.uid) == [uid])

        // The guest's session goes on; the passkey signs in to the same uid.
        #expect(await broker.get("/v1/me", headers: PasskeyTests.bearer(guest)).status == 200)
        let refreshed = await broker.post("/v1/token", ["refreshToken": guest.json?["refreshToken"] ?? .null])
        #expect(refreshed.status == 200)
        let (signIn, _) = try await PasskeyTests.signIn(broker, &authenticator)
        #expect(signIn.status == 200 && signIn.json?["user"]?["uid"]?.stringValue == uid.rawValue)
    }

    @Test(arguments: PasskeyTests.registrationRefusals)
    func anUpgradeThatDoesNotVerifyLeavesTheGuest(_ bent: Bent) async throws {
        let (broker, guest, uid) = try await Self.guest()
        var authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        bent.bend(&ceremony)
        let refused = try await Self.signUp(
            broker, &authenticator, ["email": "bent@example.com"], ceremony,
            optionsHeaders: PasskeyTests.bearer(guest), headers: PasskeyTests.bearer(guest))
        #expect(refused.status == 400 && refused.errorCode == "INVALID_PASSKEY")
        try await Self.expectStillAGuest(broker, uid, authenticator)
        #expect(await PasskeySignUpTests.accounts(broker).count == 1)
        let refusals = await PasskeyTests.events(broker, .signUp)
        #expect(refusals.map(\.outcome) == ["INVALID_PASSKEY"] && refusals.map(\.uid) == [uid])
        #expect(
            SignInFlowTests.samples(broker, "broker_signups_total")
                == ["{provider=\"passkey\",outcome=\"INVALID_PASSKEY\"}": 1])
    }

    @Test func aChallengeIssuedToAGuestWorksOnlyForItsUpgrade() async throws {
        let (broker, guest, uid) = try await Self.guest()
        // Options asked without the token do not upgrade.
        var authenticator = try TestAuthenticator()
        let unbound = try await Self.signUp(
            broker, &authenticator, optionsHeaders: [:], headers: PasskeyTests.bearer(guest))
        #expect(unbound.status == 400 && unbound.errorCode == "INVALID_PASSKEY")
        try await Self.expectStillAGuest(broker, uid, authenticator)
        // Options issued to the guest make no new account.
        let stray = try await Self.signUp(
            broker, &authenticator, optionsHeaders: PasskeyTests.bearer(guest), headers: [:])
        #expect(stray.status == 400 && stray.errorCode == "INVALID_PASSKEY")
        try await Self.expectStillAGuest(broker, uid, authenticator)
        // Nor the upgrade of another guest.
        let other = await broker.post("/v1/signin/anonymous", [:])
        let crossed = try await Self.signUp(
            broker, &authenticator, optionsHeaders: PasskeyTests.bearer(guest), headers: PasskeyTests.bearer(other))
        #expect(crossed.status == 400 && crossed.errorCode == "INVALID_PASSKEY")
        try await Self.expectStillAGuest(broker, uid, authenticator)
        #expect(await PasskeySignUpTests.accounts(broker).count == 2)
        let outcomes = await PasskeyTests.events(broker, .signUp).map(\.outcome)
        #expect(outcomes == ["INVALID_PASSKEY", "INVALID_PASSKEY", "INVALID_PASSKEY"])
    }

    @Test func theTokenOfAnAccountThatIsNoGuestChangesNothing() async throws {
        let (broker, _, _) = try await Self.guest()
        let (user, uid) = try await PasskeyTests.signUp(broker, "u@example.com")
        let options = await broker.post(
            "/v1/signup/passkey/options", ["email": "v@example.com"], headers: PasskeyTests.bearer(user))
        #expect(options.status == 409 && options.errorCode == "IDENTITY_ALREADY_LINKED")
        // Options asked without the token, the sign-up with it: refused before the challenge is spent.
        var authenticator = try TestAuthenticator()
        let refused = try await Self.signUp(
            broker, &authenticator, ["email": "v@example.com"], optionsHeaders: [:],
            headers: PasskeyTests.bearer(user))
        #expect(refused.status == 409 && refused.errorCode == "IDENTITY_ALREADY_LINKED")
        #expect(await broker.store.account(id: uid)?.email == "u@example.com")
        #expect(await broker.store.account(email: "v@example.com") == nil)
        #expect(await broker.store.passkeys(uid: uid).isEmpty)
        #expect(await PasskeySignUpTests.accounts(broker).count == 2)
        #expect(
            await PasskeyTests.events(broker, .signUp).filter { $0.provider == "passkey" }.map(\.outcome) == [
                "IDENTITY_ALREADY_LINKED"
            ])
        #expect(
            SignInFlowTests.samples(broker, "broker_signups_total")[
                "{provider=\"passkey\",outcome=\"IDENTITY_ALREADY_LINKED\"}"] == 1)
    }

    @Test func anInvalidTokenIsUnauthenticatedAndStoresNothing() async throws {
        let (broker, _, uid) = try await Self.guest()
        let bad = ["Authorization": "Bearer x"]
        let options = await broker.post("/v1/signup/passkey/options", [:], headers: bad)
        #expect(options.status == 401 && options.errorCode == "UNAUTHENTICATED")
        var authenticator = try TestAuthenticator()
        let refused = try await Self.signUp(broker, &authenticator, optionsHeaders: [:], headers: bad)
        #expect(refused.status == 401 && refused.errorCode == "UNAUTHENTICATED")
        try await Self.expectStillAGuest(broker, uid, authenticator)
        #expect(await PasskeySignUpTests.accounts(broker).count == 1)
        // As `POST /v1/signup` with a bad token: neither counted nor audited as a sign-up.
        #expect(SignInFlowTests.samples(broker, "broker_signups_total").isEmpty)
        #expect(await PasskeyTests.events(broker, .signUp).isEmpty)
    }

    @Test func anEmailTakenOrAPasskeyRegisteredAlreadyLeavesTheGuest() async throws {
        let (broker, guest, uid) = try await Self.guest()
        _ = try await PasskeyTests.signUp(broker, "taken@example.com")
        let taken = await broker.post(
            "/v1/signup/passkey/options", ["email": "TAKEN@example.com"], headers: PasskeyTests.bearer(guest))
        #expect(taken.status == 409 && taken.errorCode == "EMAIL_EXISTS")
        // Taken between the options and the sign-up.
        var authenticator = try TestAuthenticator()
        let options = await broker.post(
            "/v1/signup/passkey/options", ["email": "later@example.com"], headers: PasskeyTests.bearer(guest))
        let handle = try #require(Base64URL.decode(options.json?["publicKey"]?["user"]?["id"]?.stringValue ?? ""))
        let credential = try authenticator.register(challenge: try PasskeyTests.challenge(options), userHandle: handle)
        _ = try await PasskeyTests.signUp(broker, "later@example.com")
        let raced = await broker.post(
            "/v1/signup/passkey", ["credential": credential], headers: PasskeyTests.bearer(guest))
        #expect(raced.status == 409 && raced.errorCode == "EMAIL_EXISTS")
        try await Self.expectStillAGuest(broker, uid, authenticator)
        // A credential another account registered.
        var registered = try TestAuthenticator()
        #expect(try await PasskeySignUpTests.signUp(broker, &registered).status == 201)
        let again = try await Self.signUp(
            broker, &registered, optionsHeaders: PasskeyTests.bearer(guest), headers: PasskeyTests.bearer(guest))
        #expect(again.status == 409 && again.errorCode == "PASSKEY_EXISTS")
        #expect(try #require(await broker.store.account(id: uid)).isAnonymous)
        #expect(await broker.store.passkeys(uid: uid).isEmpty)
        let outcomes = await PasskeyTests.events(broker, .signUp).filter { $0.uid == uid }.compactMap(\.outcome)
        #expect(outcomes.sorted() == ["EMAIL_EXISTS", "PASSKEY_EXISTS"])
    }
}
