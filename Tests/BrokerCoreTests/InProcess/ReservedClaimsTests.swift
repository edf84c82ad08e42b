import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 16: the claims the broker sets itself (``CustomClaims/setByTheBroker``) come from no developer,
/// wherever claims come in, and claims stored under those names before never reach a token. The issue's attack: a
/// developer claim `mfa` made every ID token say a second factor was completed.
@Suite struct ReservedClaimsTests {
    /// `mfa` and the other claims the broker sets are refused by the admin API, the listener's
    /// `customAttributes`, custom tokens and imports (the hooks: ``SignInHookTests``), and nothing is stored.
    @Test(arguments: ["mfa", "mfa_factor_id", "sid", "phone_number", "idv", "adult", "user_id"])
    func aClaimTheBrokerSetsIsRefusedEverywhere(_ name: String) async throws {
        let broker = try await InProcessBroker.start(adminToken: SecondFactorTests.adminToken)
        let session = await broker.post("/v1/signup", ["email": "claims@example.com", "password": "secret-1"])
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)
        let admin = ["Authorization": "Bearer " + SecondFactorTests.adminToken]
        let patched = await broker.request(
            "PATCH", "/admin/v1/users/\(uid)", json: ["customClaims": .object([name: "totp", "role": "x"])],
            headers: admin)
        #expect(patched.status == 400)
        #expect(patched.errorCode == "INVALID_REQUEST")

        let attributes = String(decoding: JSONValue.object([name: "totp"]).serialized(), as: UTF8.self)
        let firebase = await broker.firebasePost(
            FirebaseAdminRoutesTests.accounts + ":update",
            ["localId": .string(uid), "customAttributes": .string(attributes)],
            headers: ["Authorization": "Bearer owner"])
        #expect(firebase.status == 400)
        #expect(FirebaseClientAPITests.code(firebase) == "FORBIDDEN_CLAIM")
        #expect(await broker.store.account(id: AccountID(uid))?.customClaims == nil)

        #expect(throws: FirebaseUserError.self) {
            _ = try FirebaseUserRecord(json: ["localId": "imported", "customAttributes": .string(attributes)])
        }
        #expect(FirebaseCustomTokenVerifier.reservedClaims.contains(name))
    }

    /// A custom token whose `claims` carry `mfa` is `INVALID_CUSTOM_TOKEN`; nothing signs in.
    @Test func aCustomTokenCannotCarryTheSecondFactorMarker() async throws {
        let broker = try await FirebaseClientAPITests.start(serviceAccount: true)
        let token = try FirebaseClientAPITests.customToken(uid: "marker-user", developerClaims: ["mfa": "totp"])
        let response = await FirebaseClientAPITests.iOS(
            broker, "verifyCustomToken", ["token": .string(token), "returnSecureToken": true])
        #expect(response.status == 400)
        #expect(FirebaseClientAPITests.code(response) == "INVALID_CUSTOM_TOKEN")
        #expect(await broker.store.account(id: AccountID("marker-user")) == nil)
    }

    /// Claims stored before a name was reserved (an older release, a direct write) never reach a token: the ID
    /// tokens of both listeners and the custom token carry the developer's claims and no second-factor marker.
    @Test func storedClaimsNeverSetTheSecondFactorMarker() async throws {
        let broker = try await InProcessBroker.start(serviceAccount: true)
        var account = Account(id: AccountID("legacy-claims"), email: "legacy@example.com", createdAt: Date())
        account.password = .chosen(try await SaltedDigestPasswordHasher().hash("secret-1"))
        account.customClaims = #"{"mfa":"totp","mfa_factor_id":"f1","role":"editor"}"#
        try await broker.store.create(account)

        let native = await broker.post("/v1/signin/password", ["email": "legacy@example.com", "password": "secret-1"])
        #expect(native.status == 200)
        let claims = try JWT(parsing: try #require(native.json?["idToken"]?.stringValue)).claims
        #expect(claims["role"] == "editor")
        #expect(claims["mfa"] == nil && claims["mfa_factor_id"] == nil)
        let custom = try JWT(parsing: try #require(native.json?["customToken"]?.stringValue)).claims
        #expect(custom["claims"]?["role"] == "editor")
        #expect(custom["claims"]?["mfa"] == nil)

        let listener = await FirebaseClientAPITests.iOS(
            broker, "verifyPassword",
            ["email": "legacy@example.com", "password": "secret-1", "returnSecureToken": true])
        #expect(listener.status == 200)
        let firebase = try JWT(parsing: try #require(listener.json?["idToken"]?.stringValue)).claims
        #expect(firebase["role"] == "editor")
        #expect(firebase["firebase"]?["sign_in_second_factor"] == nil)
        #expect(firebase["firebase"]?["second_factor_identifier"] == nil)
    }

    /// A hook is sent the developer's claims as the tokens carry them: a stored name the broker sets itself is left
    /// out, so a hook that answers the claims it was told goes on (it would be refused for `mfa`).
    @Test func aHookIsToldTheDeveloperClaimsOnly() async throws {
        let broker = try await SignInHookTests.start()
        var account = Account(id: AccountID("legacy-hooked"), email: "hooked@example.com", createdAt: Date())
        account.password = .chosen(try await SaltedDigestPasswordHasher().hash("secret-123"))
        account.customClaims = #"{"mfa":"totp","role":"editor"}"#
        try await broker.store.create(account)
        broker.stubs.appHooks.script(
            SignInHookTests.signIn, StubAppHooks.Answer(body: ["customClaims": ["role": "editor"]]))
        let response = await SignInHookTests.signInWithPassword(broker, "hooked@example.com")
        #expect(response.status == 200)
        let told = try #require(broker.stubs.appHooks.calls.last?.body?["user"]?["customClaims"])
        #expect(told == ["role": "editor"])
    }
}
