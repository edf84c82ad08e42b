import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The iOS SDK's links of an email credential to a signed-in user who is no guest (contract section 11):
/// `signupNewUser` with an `idToken` (an email and password) and `emailLinkSignin` with an `idToken` (an email
/// link), replayed as the SDK sends them, with every refusal and the state after.
@Suite struct FirebaseLinkingTests {
    static let legacy = FirebaseEndpoints.legacyRelyingPartyPath

    static func iOS(_ broker: InProcessBroker, _ name: String, _ body: JSONValue) async -> TestResponse {
        await broker.firebasePost(legacy + "/" + name + "?key=AIzaSyTestKey", body)
    }

    static func code(_ response: TestResponse) -> String? {
        response.json?["error"]?["message"]?.stringValue.map {
            String($0.split(separator: " ", maxSplits: 1).first ?? "")
        }
    }

    /// A user signed in on the listener with a Google ID token carrying `email` (verified).
    static func googleUser(
        _ broker: InProcessBroker, subject: String, email: String
    ) async throws -> (uid: AccountID, idToken: String, refreshToken: String) {
        let token = try broker.stubs.idToken(
            "google", claims: ["sub": .string(subject), "email": .string(email), "email_verified": true])
        let signedIn = await iOS(
            broker, "verifyAssertion",
            [
                "requestUri": "http://localhost", "postBody": .string("providerId=google.com&id_token=\(token)"),
                "returnSecureToken": true,
            ])
        #expect(signedIn.status == 200)
        return (
            AccountID(try #require(signedIn.json?["localId"]?.stringValue)),
            try #require(signedIn.json?["idToken"]?.stringValue),
            try #require(signedIn.json?["refreshToken"]?.stringValue)
        )
    }

    /// `SignUpNewUserRequest(email:password:displayName:idToken:)`'s body, as `link(withEmail:password:)` sends it.
    static func linkBody(_ email: String, _ password: String, idToken: String) -> JSONValue {
        [
            "email": .string(email), "password": .string(password), "idToken": .string(idToken),
            "clientType": "CLIENT_TYPE_IOS", "returnSecureToken": true,
        ]
    }

    @Test func signUpWithAnIDTokenLinksAPasswordToTheUser() async throws {
        let broker = try await InProcessBroker.start()
        let user = try await Self.googleUser(broker, subject: "g-link", email: "pat@example.com")
        let linked = await Self.iOS(
            broker, "signupNewUser", Self.linkBody("Pat@Example.com", "secret-pw-1", idToken: user.idToken))
        #expect(linked.status == 200)
        #expect(linked.json?["localId"]?.stringValue == user.uid.rawValue)
        let idToken = try #require(linked.json?["idToken"]?.stringValue)
        let claims = try JWT(parsing: idToken).claims
        #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "password")
        let account = try #require(await broker.store.account(id: user.uid))
        #expect(account.password?.hash != nil && account.identity(ProviderID("google")) != nil)
        #expect(account.email == "pat@example.com" && account.emailVerified)
        // The password signs in to the same user; the earlier session ended, as a password change ends it.
        let password = try await broker.services.signIn.signIn(
            email: "pat@example.com", password: "secret-pw-1", requestID: "t", surface: .firebase)
        #expect(password.account.id == user.uid)
        await #expect(throws: SessionError.self) {
            _ = try await broker.services.sessions.refresh(user.refreshToken, surface: .firebase)
        }
        let lookup = await Self.iOS(broker, "getAccountInfo", ["idToken": .string(idToken)])
        let info = lookup.json?["users"]?.arrayValue?.first?["providerUserInfo"]?.arrayValue ?? []
        let providers = info.compactMap { $0["providerId"]?.stringValue }
        #expect(Set(providers) == ["google.com", "password"])
        // A second link is refused: the user has a password now.
        let again = await Self.iOS(
            broker, "signupNewUser", Self.linkBody("pat@example.com", "secret-pw-2", idToken: idToken))
        #expect(again.status == 400 && Self.code(again) == "PROVIDER_ALREADY_LINKED")
    }

    @Test(arguments: [
        ("other address", "EMAIL_CHANGE_NEEDS_VERIFICATION"), ("taken", "EMAIL_EXISTS"), ("weak", "WEAK_PASSWORD"),
        ("old sign-in", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"), ("bad token", "INVALID_ID_TOKEN"),
        ("no password", "MISSING_PASSWORD"), ("not an address", "INVALID_EMAIL"),
    ])
    func aRefusedPasswordLinkChangesNothing(_ kind: String, _ expected: String) async throws {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(clock: clock)
        _ = try await broker.services.signIn.signUp(
            email: "taken@example.com", password: "secret-1", displayName: nil, requestID: "t", surface: .firebase)
        let user = try await Self.googleUser(broker, subject: "g-refused", email: "quinn@example.com")
        var body: [String: JSONValue] = [
            "email": "quinn@example.com", "password": "secret-pw-1", "idToken": .string(user.idToken),
            "returnSecureToken": true,
        ]
        switch kind {
        case "other address": body["email"] = "someone@example.com"
        case "taken": body["email"] = "Taken@example.com"
        case "weak": body["password"] = "12"
        case "old sign-in": clock.advance(by: 301)
        case "bad token": body["idToken"] = "not-a-token"
        case "no password": body["password"] = nil
        default: body["email"] = "quinn at example"
        }
        let response = await Self.iOS(broker, "signupNewUser", .object(body))
        #expect(response.status == 400)
        #expect(Self.code(response) == expected)
        let account = try #require(await broker.store.account(id: user.uid))
        #expect(account.password?.hash == nil && account.email == "quinn@example.com")
        #expect(await broker.store.account(email: "someone@example.com") == nil)
        // The session goes on.
        #expect((try? await broker.services.sessions.refresh(user.refreshToken, surface: .firebase)) != nil)
    }

    /// `EmailLinkSignInRequest` with `idToken`, as `link(withEmailCredential:)` sends it for an email link.
    @Test func emailLinkSigninWithAnIDTokenLinksTheAddressToTheUser() async throws {
        let broker = try await InProcessBroker.start()
        let user = try await Self.googleUser(broker, subject: "g-el", email: "rae@example.com")
        let link = try await broker.services.actionCodes.issueLink(
            .signIn, email: "rae@example.com", continueURL: nil, requestID: "t")
        let linked = await Self.iOS(
            broker, "emailLinkSignin",
            ["email": "rae@example.com", "oobCode": .string(link.oobCode), "idToken": .string(user.idToken)])
        #expect(linked.status == 200)
        #expect(linked.json?["localId"]?.stringValue == user.uid.rawValue)
        #expect(linked.json?["isNewUser"]?.boolValue == false)
        #expect(linked.json?["email"]?.stringValue == "rae@example.com")
        let account = try #require(await broker.store.account(id: user.uid))
        #expect(account.emailVerified && account.identity(ProviderID("google")) != nil)
        let events = await broker.store.auditEvents(uid: user.uid, before: nil, limit: 10)
        #expect(events.contains { $0.action == .link && $0.provider == "emailLink" })
        let reused = await Self.iOS(
            broker, "emailLinkSignin",
            ["email": "rae@example.com", "oobCode": .string(link.oobCode), "idToken": .string(user.idToken)])
        #expect(reused.status == 400 && Self.code(reused) == "INVALID_OOB_CODE")
    }

    @Test(arguments: [("other address", "EMAIL_CHANGE_NEEDS_VERIFICATION"), ("taken", "EMAIL_EXISTS")])
    func aRefusedEmailLinkLinkLeavesTheCodeUnused(_ kind: String, _ expected: String) async throws {
        let broker = try await InProcessBroker.start()
        _ = try await broker.services.signIn.signUp(
            email: "taken@example.com", password: "secret-1", displayName: nil, requestID: "t", surface: .firebase)
        let user = try await Self.googleUser(broker, subject: "g-el-refused", email: "sam@example.com")
        let address = kind == "taken" ? "taken@example.com" : "elsewhere@example.com"
        let link = try await broker.services.actionCodes.issueLink(
            .signIn, email: address, continueURL: nil, requestID: "t")
        let refused = await Self.iOS(
            broker, "emailLinkSignin",
            ["email": .string(address), "oobCode": .string(link.oobCode), "idToken": .string(user.idToken)])
        #expect(refused.status == 400)
        #expect(Self.code(refused) == expected)
        #expect(await broker.store.account(id: user.uid)?.email == "sam@example.com")
        #expect(
            await !broker.store.auditEvents(uid: user.uid, before: nil, limit: 10).contains {
                $0.action == .link && $0.outcome == "success"
            })
        // The code is unused: it still signs in its address's holder (or makes the account).
        let signIn = await Self.iOS(
            broker, "emailLinkSignin", ["email": .string(address), "oobCode": .string(link.oobCode)])
        #expect(signIn.status == 200)
        #expect(signIn.json?["localId"]?.stringValue != user.uid.rawValue)
    }
}
