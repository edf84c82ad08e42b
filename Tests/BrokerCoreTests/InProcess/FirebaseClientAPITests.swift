import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The Firebase listener's client API (contract section 11), by replays of the requests firebase-ios-sdk builds
/// (its legacy v3 `relyingparty` names, `?key=`, its headers and bodies) and of the JS SDK's form-encoded
/// `securetoken` refresh: the status, the fields the SDKs' response types read, and the state after.
@Suite struct FirebaseClientAPITests {
    static let legacy = FirebaseEndpoints.legacyRelyingPartyPath
    static let v1 = FirebaseEndpoints.identityToolkitPath
    /// The headers firebase-ios-sdk's AuthBackend sets (emulator mode: plain HTTP to `localhost:9099`).
    static let iOSHeaders = [
        "Host": "localhost:9099", "X-Client-Version": "iOS/FirebaseSDK/11.5.0/FirebaseCore-iOS",
        "X-Ios-Bundle-Identifier": "com.example.app", "X-Firebase-GMPID": "1:123456:ios:abcdef",
        "Accept-Language": "en",
    ]

    static func start(
        serviceAccount: Bool = false, firebaseCompat: JSONValue? = nil, clock: any Clock = SystemClock()
    ) async throws -> InProcessBroker {
        try await InProcessBroker.start(clock: clock, serviceAccount: serviceAccount) { document in
            guard let firebaseCompat, case .object(var members) = document else { return document }
            members["firebaseCompat"] = firebaseCompat
            return .object(members)
        }
    }

    /// An iOS SDK call: `POST …/relyingparty/<name>?key=…` with its headers.
    static func iOS(_ broker: InProcessBroker, _ name: String, _ body: JSONValue) async -> TestResponse {
        await broker.firebase("POST", legacy + "/" + name + "?key=AIzaSyTestKey", json: body, headers: iOSHeaders)
    }

    /// Firebase's code: `error.message` up to ` : `.
    static func code(_ response: TestResponse) -> String? {
        response.json?["error"]?["message"]?.stringValue.map { String($0.split(separator: " ", maxSplits: 1).first ?? "") }
    }

    static func verifyAssertion(
        _ broker: InProcessBroker, postBody: String, idToken: String? = nil, returnIdpCredential: Bool = false
    ) async -> TestResponse {
        var body: [String: JSONValue] = [
            "requestUri": "http://localhost", "postBody": .string(postBody), "returnSecureToken": true,
            "returnIdpCredential": .bool(returnIdpCredential),
        ]
        if let idToken { body["idToken"] = .string(idToken) }
        return await iOS(broker, "verifyAssertion", .object(body))
    }

    static func signUp(_ broker: InProcessBroker, _ email: String = "ios@example.com") async -> TestResponse {
        await iOS(broker, "signupNewUser", ["email": .string(email), "password": "secret-pass", "returnSecureToken": true, "clientType": "CLIENT_TYPE_IOS"])
    }

    // MARK: Email and password

    @Test func emailSignUpSignInAndGetAccountInfo() async throws {
        let broker = try await Self.start()
        let signUp = await Self.signUp(broker)
        #expect(signUp.status == 200)
        #expect(signUp.json?["kind"]?.stringValue == "identitytoolkit#SignupNewUserResponse")
        let uid = try #require(signUp.json?["localId"]?.stringValue)
        #expect(signUp.json?["email"]?.stringValue == "ios@example.com")
        #expect(signUp.json?["expiresIn"]?.stringValue == "3600")
        #expect(signUp.json?["refreshToken"]?.stringValue?.isEmpty == false)
        let idToken = try #require(signUp.json?["idToken"]?.stringValue)
        #expect(JWKSVerification.decode(idToken)?.claims["user_id"]?.stringValue == uid)
        #expect(await broker.store.account(id: AccountID(uid))?.hasUsablePassword == true)

        let signIn = await Self.iOS(
            broker, "verifyPassword", ["email": "ios@example.com", "password": "secret-pass", "returnSecureToken": true])
        #expect(signIn.status == 200)
        #expect(signIn.json?["kind"]?.stringValue == "identitytoolkit#VerifyPasswordResponse")
        #expect(signIn.json?["localId"]?.stringValue == uid)
        #expect(signIn.json?["registered"]?.boolValue == true)
        #expect(signIn.json?["expiresIn"]?.stringValue == "3600")

        let info = await Self.iOS(broker, "getAccountInfo", ["idToken": .string(try #require(signIn.json?["idToken"]?.stringValue))])
        #expect(info.status == 200)
        let user = try #require(info.json?["users"]?.arrayValue?.first)
        #expect(info.json?["users"]?.arrayValue?.count == 1)
        #expect(user["localId"]?.stringValue == uid)
        #expect(user["email"]?.stringValue == "ios@example.com")
        #expect(user["passwordHash"]?.stringValue == "UkVEQUNURUQ=")
        #expect(user["createdAt"]?.stringValue.flatMap { Int64($0) } != nil)
        #expect(user["lastLoginAt"]?.stringValue.flatMap { Int64($0) } != nil)
        #expect(user["providerUserInfo"]?.arrayValue?.first?["providerId"]?.stringValue == "password")
    }

    @Test func signUpRefusalsStoreNothing() async throws {
        let broker = try await Self.start()
        #expect(await Self.signUp(broker).status == 200)
        let taken = await Self.signUp(broker)
        #expect(taken.status == 400)
        #expect(Self.code(taken) == "EMAIL_EXISTS")
        let weak = await Self.iOS(broker, "signupNewUser", ["email": "weak@example.com", "password": "123", "returnSecureToken": true])
        #expect(weak.status == 400)
        #expect(weak.json?["error"]?["message"]?.stringValue?.hasPrefix("WEAK_PASSWORD : ") == true)
        let anonymous = await Self.iOS(broker, "signupNewUser", ["returnSecureToken": true])
        #expect(Self.code(anonymous) == "OPERATION_NOT_ALLOWED")
        let noPassword = await Self.iOS(broker, "signupNewUser", ["email": "np@example.com"])
        #expect(Self.code(noPassword) == "MISSING_PASSWORD")
        let badEmail = await Self.iOS(broker, "signupNewUser", ["email": "nope", "password": "secret-pass"])
        #expect(Self.code(badEmail) == "INVALID_EMAIL")
        let wrongType = await Self.iOS(broker, "signupNewUser", ["email": 5, "password": "secret-pass"])
        #expect(wrongType.status == 400)
        #expect(Self.code(wrongType) == "INVALID_ARGUMENT")
        for email in ["weak@example.com", "np@example.com", "nope"] {
            #expect(await broker.store.account(email: email) == nil)
        }
        // The v1 name answers the same.
        let v1 = await broker.firebasePost(Self.v1 + "/accounts:signUp?key=k", ["email": "v1@example.com", "password": "secret-pass"])
        #expect(v1.status == 200)
    }

    @Test func wrongCredentialsAnswerAsTheProjectIsSetUp() async throws {
        let broker = try await Self.start()
        #expect(await Self.signUp(broker).status == 200)
        for (email, password) in [("ios@example.com", "wrong-pass"), ("nobody@example.com", "secret-pass")] {
            let response = await Self.iOS(broker, "verifyPassword", ["email": .string(email), "password": .string(password)])
            #expect(response.status == 400)
            #expect(Self.code(response) == "INVALID_LOGIN_CREDENTIALS")
        }
        let legacyProject = try await Self.start(firebaseCompat: ["emailEnumerationProtection": false])
        #expect(await Self.signUp(legacyProject).status == 200)
        let wrong = await Self.iOS(legacyProject, "verifyPassword", ["email": "ios@example.com", "password": "wrong-pass"])
        #expect(Self.code(wrong) == "INVALID_PASSWORD")
        let unknown = await Self.iOS(legacyProject, "verifyPassword", ["email": "nobody@example.com", "password": "secret-pass"])
        #expect(Self.code(unknown) == "EMAIL_NOT_FOUND")
    }

    @Test func aForeignHostIsRefusedAndNothingIsStored() async throws {
        let broker = try await Self.start()
        var headers = Self.iOSHeaders
        headers["Host"] = "attacker.example:9099"
        let response = await broker.firebase(
            "POST", Self.legacy + "/signupNewUser?key=k", json: ["email": "dns@example.com", "password": "secret-pass"],
            headers: headers)
        #expect(response.status == 403)
        #expect(await broker.store.account(email: "dns@example.com") == nil)
    }

    // MARK: Providers

    @Test func googleSignInAndReturningSignIn() async throws {
        let broker = try await Self.start()
        let token = try broker.stubs.idToken("google", claims: ["sub": "g-ios", "email": "g@example.com", "email_verified": true])
        let first = await Self.verifyAssertion(broker, postBody: "providerId=google.com&id_token=\(token)", returnIdpCredential: true)
        #expect(first.status == 200)
        #expect(first.json?["kind"]?.stringValue == "identitytoolkit#VerifyAssertionResponse")
        #expect(first.json?["providerId"]?.stringValue == "google.com")
        #expect(first.json?["federatedId"]?.stringValue == "g-ios")
        #expect(first.json?["isNewUser"]?.boolValue == true)
        #expect(first.json?["emailVerified"]?.boolValue == true)
        #expect(first.json?["email"]?.stringValue == "g@example.com")
        #expect(first.json?["oauthIdToken"]?.stringValue == token)
        #expect(first.json?["expiresIn"]?.stringValue == "3600")
        #expect(first.json?["rawUserInfo"]?.stringValue.flatMap { JSONValue.parse(Array($0.utf8))?["sub"] } == "g-ios")
        let uid = try #require(first.json?["localId"]?.stringValue)
        let firstToken = try #require(first.json?["idToken"]?.stringValue)
        let claims = try #require(JWKSVerification.decode(firstToken)?.claims)
        #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "google.com")

        let again = try broker.stubs.idToken("google", claims: ["sub": "g-ios", "email": "g@example.com", "email_verified": true])
        let second = await Self.verifyAssertion(broker, postBody: "providerId=google.com&id_token=\(again)")
        #expect(second.status == 200)
        #expect(second.json?["localId"]?.stringValue == uid)
        #expect(second.json?["isNewUser"]?.boolValue == false)
        #expect(second.json?["oauthIdToken"] == nil)
    }

    @Test func appleWithTheRightNonceAndTheWrongOne() async throws {
        let broker = try await Self.start()
        let nonce = "raw-nonce-ios"
        let hashed = Hex.encode(Digest.sha256(nonce))
        let wrong = try broker.stubs.idToken("apple", claims: ["sub": "a-ios", "nonce": .string(Hex.encode(Digest.sha256("other")))])
        let refused = await Self.verifyAssertion(broker, postBody: "providerId=apple.com&id_token=\(wrong)&nonce=\(nonce)")
        #expect(refused.status == 400)
        #expect(Self.code(refused) == "MISSING_OR_INVALID_NONCE")
        let missing = try broker.stubs.idToken("apple", claims: ["sub": "a-ios", "nonce": .string(hashed)])
        #expect(Self.code(await Self.verifyAssertion(broker, postBody: "providerId=apple.com&id_token=\(missing)")) == "MISSING_OR_INVALID_NONCE")
        #expect(await broker.store.account(provider: ProviderID("apple"), subject: "a-ios") == nil)

        let token = try broker.stubs.idToken("apple", claims: ["sub": "a-ios", "nonce": .string(hashed)])
        let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let accepted = await Self.verifyAssertion(broker, postBody: "providerId=apple.com&id_token=\(token)&nonce=\(nonce)&user=\(user)")
        #expect(accepted.status == 200)
        #expect(accepted.json?["providerId"]?.stringValue == "apple.com")
        #expect(accepted.json?["isNewUser"]?.boolValue == true)
        let stored = try #require(await broker.store.account(provider: ProviderID("apple"), subject: "a-ios"))
        #expect(stored.id.rawValue == accepted.json?["localId"]?.stringValue)
        #expect(stored.displayName == "Ada Lovelace")
    }

    @Test func forgedAndExpiredProviderTokensAreRefusedAndStoreNothing() async throws {
        let broker = try await Self.start()
        let forged = try broker.stubs.idToken("google", claims: ["sub": "g-forged"], signingKey: try StubKeySet.strangerKey(3))
        let expired = try broker.stubs.idToken(
            "google", claims: ["sub": "g-expired", "iat": .int(Int64(Date().timeIntervalSince1970) - 7200),
                               "exp": .int(Int64(Date().timeIntervalSince1970) - 3600)])
        for token in [forged, expired, "not-a-token"] {
            let response = await Self.verifyAssertion(broker, postBody: "providerId=google.com&id_token=\(token)")
            #expect(response.status == 400)
            #expect(Self.code(response) == "INVALID_IDP_RESPONSE")
        }
        let unknown = await Self.verifyAssertion(broker, postBody: "providerId=facebook.com&access_token=x")
        #expect(Self.code(unknown) == "INVALID_PROVIDER_ID")
        let noBody = await Self.iOS(broker, "verifyAssertion", ["requestUri": "http://localhost", "returnSecureToken": true])
        #expect(Self.code(noBody) == "INVALID_CREDENTIAL_OR_PROVIDER_ID")
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-forged") == nil)
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-expired") == nil)
    }

    /// Reached by its own id, and named by it (contract section 11).
    @Test func anAccessTokenProviderIsReachedByItsOwnID() async throws {
        let broker = try await Self.start()
        let kakao = KakaoStubUser(id: 4242, email: "k@example.com")
        let response = await Self.verifyAssertion(
            broker, postBody: "providerId=kakao&access_token=\(broker.stubs.kakaoAccessToken(for: kakao))")
        #expect(response.status == 200)
        #expect(response.json?["providerId"]?.stringValue == "kakao")
        #expect(await broker.store.account(provider: ProviderID("kakao"), subject: "4242") != nil)
    }

    @Test func kakaosIDTokenIsOIDCKakaoAndItsAccessTokenIsKakao() async throws {
        let broker = try await Self.start()
        let token = try broker.stubs.idToken("kakao", claims: ["sub": "4100000002"])
        let oidc = await Self.verifyAssertion(broker, postBody: "providerId=oidc.kakao&id_token=\(token)")
        #expect(oidc.status == 200)
        #expect(oidc.json?["providerId"]?.stringValue == "oidc.kakao")
        let uid = try #require(oidc.json?["localId"]?.stringValue)
        // The same Kakao user through its access token reaches the same account.
        let kakao = KakaoStubUser(id: 4_100_000_002)
        let rest = await Self.verifyAssertion(
            broker, postBody: "providerId=kakao&access_token=\(broker.stubs.kakaoAccessToken(for: kakao))")
        #expect(rest.json?["localId"]?.stringValue == uid)
        // An ID token under the access-token id (or the reverse) names no provider.
        let wrongKind = await Self.verifyAssertion(broker, postBody: "providerId=kakao&id_token=\(token)")
        #expect(Self.code(wrongKind) == "INVALID_PROVIDER_ID")
    }

    @Test func anEmailOfAnotherAccountNeedsConfirmationAndStoresNothing() async throws {
        let broker = try await Self.start()
        let google = try broker.stubs.idToken("google", claims: ["sub": "g-owner", "email": "same@example.com", "email_verified": true])
        #expect(await Self.verifyAssertion(broker, postBody: "providerId=google.com&id_token=\(google)").status == 200)
        let nonce = "n-2"
        let apple = try broker.stubs.idToken(
            "apple", claims: ["sub": "a-other", "email": "same@example.com", "email_verified": true,
                              "nonce": .string(Hex.encode(Digest.sha256(nonce)))])
        let response = await Self.verifyAssertion(broker, postBody: "providerId=apple.com&id_token=\(apple)&nonce=\(nonce)")
        #expect(response.status == 200)
        #expect(response.json?["needConfirmation"]?.boolValue == true)
        #expect(response.json?["verifiedProvider"] == ["google.com"])
        #expect(response.json?["idToken"] == nil)
        #expect(await broker.store.account(provider: ProviderID("apple"), subject: "a-other") == nil)
    }

    @Test func linkingWithAnIDTokenAndAnIdentityLinkedElsewhere() async throws {
        let broker = try await Self.start()
        let signUp = await Self.signUp(broker)
        let idToken = try #require(signUp.json?["idToken"]?.stringValue)
        let uid = try #require(signUp.json?["localId"]?.stringValue)
        let google = try broker.stubs.idToken("google", claims: ["sub": "g-link", "email": "other@example.com"])
        let linked = await Self.verifyAssertion(broker, postBody: "providerId=google.com&id_token=\(google)", idToken: idToken)
        #expect(linked.status == 200)
        #expect(linked.json?["localId"]?.stringValue == uid)
        #expect(linked.json?["idToken"]?.stringValue?.isEmpty == false)
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-link")?.id.rawValue == uid)

        let other = await Self.signUp(broker, "second@example.com")
        let otherToken = try #require(other.json?["idToken"]?.stringValue)
        let again = try broker.stubs.idToken("google", claims: ["sub": "g-link"])
        let refused = await Self.verifyAssertion(broker, postBody: "providerId=google.com&id_token=\(again)", idToken: otherToken)
        #expect(refused.status == 400)
        #expect(Self.code(refused) == "FEDERATED_USER_ID_ALREADY_LINKED")
        let third = try broker.stubs.idToken("google", claims: ["sub": "g-link"])
        let inBody = await Self.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(third)", idToken: otherToken, returnIdpCredential: true)
        #expect(inBody.status == 200)
        #expect(inBody.json?["errorMessage"]?.stringValue == "FEDERATED_USER_ID_ALREADY_LINKED")
        #expect(inBody.json?["idToken"] == nil)
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-link")?.id.rawValue == uid)
    }

    // MARK: Custom tokens

    static func customToken(
        uid: String, issuedAt: Int64 = Int64(Date().timeIntervalSince1970), lifetime: Int64 = 3600,
        issuer: String = TestServiceAccount.clientEmail, key: RSAPrivateKey? = nil, developerClaims: JSONValue? = nil
    ) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(issuer), "aud": .string(FirebaseEndpoints.customTokenAudience),
            "iat": .int(issuedAt), "exp": .int(issuedAt + lifetime), "uid": .string(uid),
        ]
        if let developerClaims { claims["claims"] = developerClaims }
        let header: [String: JSONValue] = ["alg": "RS256", "typ": "JWT", "kid": .string(TestServiceAccount.privateKeyID)]
        return try JWT.encode(header: header, claims: claims, sign: (try key ?? TestServiceAccount.key()).signSHA256)
    }

    @Test func aCustomTokenCreatesItsUserAndMayBeUsedAgain() async throws {
        let broker = try await Self.start(serviceAccount: true)
        let token = try Self.customToken(uid: "custom-uid-1")
        let first = await Self.iOS(broker, "verifyCustomToken", ["token": .string(token), "returnSecureToken": true])
        #expect(first.status == 200)
        #expect(first.json?["kind"]?.stringValue == "identitytoolkit#VerifyCustomTokenResponse")
        #expect(first.json?["isNewUser"]?.boolValue == true)
        #expect(first.json?["expiresIn"]?.stringValue == "3600")
        let firstToken = try #require(first.json?["idToken"]?.stringValue)
        let claims = try #require(JWKSVerification.decode(firstToken)?.claims)
        #expect(claims["user_id"]?.stringValue == "custom-uid-1")
        #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "custom")
        #expect(await broker.store.account(id: AccountID("custom-uid-1")) != nil)
        let second = await Self.iOS(broker, "verifyCustomToken", ["token": .string(token), "returnSecureToken": true])
        #expect(second.status == 200)
        #expect(second.json?["isNewUser"]?.boolValue == false)
        // Its claims are in the session's ID tokens, refreshed ones too, never over a reserved claim.
        let withClaims = try Self.customToken(uid: "custom-uid-1", developerClaims: ["role": "admin", "premium": true])
        let claimed = await Self.iOS(broker, "verifyCustomToken", ["token": .string(withClaims), "returnSecureToken": true])
        let claimedToken = try #require(claimed.json?["idToken"]?.stringValue)
        #expect(JWKSVerification.decode(claimedToken)?.claims["role"]?.stringValue == "admin")
        let refresh = try #require(claimed.json?["refreshToken"]?.stringValue)
        let refreshed = await broker.firebase(
            "POST", FirebaseEndpoints.secureTokenPath + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": .string(refresh)])
        let refreshedToken = try #require(refreshed.json?["id_token"]?.stringValue)
        #expect(JWKSVerification.decode(refreshedToken)?.claims["premium"]?.boolValue == true)
        #expect(await broker.store.account(id: AccountID("custom-uid-1"))?.customClaims == nil)
        let reserved = try Self.customToken(uid: "custom-uid-1", developerClaims: ["sub": "someone-else"])
        #expect(Self.code(await Self.iOS(broker, "verifyCustomToken", ["token": .string(reserved)])) == "INVALID_CUSTOM_TOKEN")
        // The broker's own minted custom token works too.
        let account = try #require(await broker.store.account(id: AccountID("custom-uid-1")))
        let minted = try #require(try broker.services.sessions.customToken(for: account))
        #expect(await Self.iOS(broker, "verifyCustomToken", ["token": .string(minted)]).status == 200)
    }

    @Test func badCustomTokensAreRefusedAndStoreNothing() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(serviceAccount: true, clock: clock)
        let now = Int64(clock.now.timeIntervalSince1970)
        let cases: [(String, String)] = [
            (try Self.customToken(uid: "bad-1", key: try StubKeySet.strangerKey(4)), "INVALID_CUSTOM_TOKEN"),
            (try Self.customToken(uid: "bad-2", issuer: "someone@other-project.iam.gserviceaccount.com", key: try StubKeySet.strangerKey(4)), "CREDENTIAL_MISMATCH"),
            (try Self.customToken(uid: "bad-3", issuedAt: now - 7200), "INVALID_CUSTOM_TOKEN"),
            (try Self.customToken(uid: "bad-4", lifetime: 7200), "INVALID_CUSTOM_TOKEN"),
            (try Self.customToken(uid: String(repeating: "u", count: 129)), "INVALID_CUSTOM_TOKEN"),
            (Self.unsigned(uid: "bad-5"), "INVALID_CUSTOM_TOKEN"),
            ("garbage", "INVALID_CUSTOM_TOKEN"),
        ]
        for (token, code) in cases {
            let response = await Self.iOS(broker, "verifyCustomToken", ["token": .string(token), "returnSecureToken": true])
            #expect(response.status == 400)
            #expect(Self.code(response) == code)
        }
        #expect(Self.code(await Self.iOS(broker, "verifyCustomToken", [:])) == "MISSING_CUSTOM_TOKEN")
        for uid in ["bad-1", "bad-2", "bad-3", "bad-4", "bad-5"] {
            #expect(await broker.store.account(id: AccountID(uid)) == nil)
        }
        // Valid when made, refused once expired.
        let token = try Self.customToken(uid: "later", issuedAt: now)
        clock.advance(by: 3601)
        #expect(Self.code(await Self.iOS(broker, "verifyCustomToken", ["token": .string(token)])) == "INVALID_CUSTOM_TOKEN")
        #expect(await broker.store.account(id: AccountID("later")) == nil)
    }

    static func unsigned(uid: String) -> String {
        Base64URL.encode(JSONValue.object(["alg": "none", "typ": "JWT"]).serialized()) + "."
            + Base64URL.encode(JSONValue.object(["uid": .string(uid)]).serialized()) + "."
    }

    @Test func unsignedCustomTokensOnlyWhenAllowed() async throws {
        let broker = try await Self.start(firebaseCompat: ["acceptUnsignedCustomTokens": true])
        let response = await Self.iOS(broker, "verifyCustomToken", ["token": .string(Self.unsigned(uid: "emu-1"))])
        #expect(response.status == 200)
        #expect(response.json?["isNewUser"]?.boolValue == true)
        // Without a service account, a signed token is not one the broker can check.
        let signed = await Self.iOS(broker, "verifyCustomToken", ["token": .string(try Self.customToken(uid: "emu-2"))])
        #expect(Self.code(signed) == "INVALID_CUSTOM_TOKEN")
        #expect(await broker.store.account(id: AccountID("emu-2")) == nil)
    }

    // MARK: Refresh

    @Test func refreshThroughSecureTokenAsTheiOSAndJSSDKsSendIt() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        let signUp = await Self.signUp(broker)
        let uid = try #require(signUp.json?["localId"]?.stringValue)
        let first = try #require(signUp.json?["refreshToken"]?.stringValue)
        let path = FirebaseEndpoints.secureTokenPath + "?key=AIzaSyTestKey"
        // The iOS SDK: JSON with grantType and refreshToken.
        let iOS = await broker.firebase(
            "POST", path, json: ["grantType": "refresh_token", "refreshToken": .string(first)], headers: Self.iOSHeaders)
        #expect(iOS.status == 200)
        #expect(iOS.json?["token_type"]?.stringValue == "Bearer")
        #expect(iOS.json?["expires_in"]?.stringValue == "3600")
        #expect(iOS.json?["user_id"]?.stringValue == uid)
        #expect(iOS.json?["project_id"]?.stringValue == broker.services.config.projectID)
        #expect(iOS.json?["access_token"] == iOS.json?["id_token"])
        // Firebase's refresh tokens do not rotate (contract section 11): the answer is the token sent.
        let second = try #require(iOS.json?["refresh_token"]?.stringValue)
        #expect(second == first)
        let idToken = try #require(iOS.json?["id_token"]?.stringValue)
        #expect(await Self.iOS(broker, "getAccountInfo", ["idToken": .string(idToken)]).status == 200)

        // The JS SDK: form-encoded grant_type and refresh_token.
        let js = await broker.firebase(
            "POST", path, body: Array("grant_type=refresh_token&refresh_token=\(second)".utf8),
            headers: ["Host": "127.0.0.1:9099", "Content-Type": "application/x-www-form-urlencoded"])
        #expect(js.status == 200)
        #expect(js.json?["refresh_token"]?.stringValue == first)

        // A client that keeps its first refresh token keeps working, long after (no rotation, no reuse detection);
        // each use is recorded; the session ends only when it is revoked: TOKEN_EXPIRED, on which the SDKs sign out.
        clock.advance(by: 90 * 86_400)
        let later = await broker.firebase("POST", path, json: ["grant_type": "refresh_token", "refresh_token": .string(first)])
        #expect(later.status == 200)
        #expect(later.json?["refresh_token"]?.stringValue == first)
        let record = try #require(await broker.store.refreshToken(hash: Hex.encode(Digest.sha256(first))))
        #expect(record.rotatedAt == nil)
        #expect(record.usedAt.map { abs($0.timeIntervalSince(clock.now)) < 0.001 } == true)
        let summary = await broker.store.sessionSummary(accountID: AccountID(uid), at: clock.now)
        #expect(summary.live == 1)
        #expect(summary.lastUsedAt.map { abs($0.timeIntervalSince(clock.now)) < 0.001 } == true)
        _ = try await broker.services.admin.revokeSessions(AccountID(uid), requestID: "r")
        let after = await broker.firebase("POST", path, json: ["grant_type": "refresh_token", "refresh_token": .string(first)])
        #expect(after.status == 400)
        #expect(Self.code(after) == "TOKEN_EXPIRED")
    }

    @Test func theNativeAPIStillRotatesItsRefreshTokens() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        _ = await Self.signUp(broker)
        let native = await broker.post("/v1/signin/password", ["email": "ios@example.com", "password": "secret-pass"])
        let first = try #require(native.json?["refreshToken"]?.stringValue)
        let refreshed = await broker.post("/v1/token", ["refreshToken": .string(first)])
        #expect(refreshed.status == 200)
        #expect(refreshed.json?["refreshToken"]?.stringValue != first)
        clock.advance(by: 11)
        let reuse = await broker.post("/v1/token", ["refreshToken": .string(first)])
        #expect(reuse.status == 401)
        #expect(reuse.errorCode == "INVALID_REFRESH_TOKEN")
    }

    @Test func refreshRefusals() async throws {
        let broker = try await Self.start()
        let path = FirebaseEndpoints.secureTokenPath + "?key=k"
        let signUp = await Self.signUp(broker)
        let uid = try #require(signUp.json?["localId"]?.stringValue)
        let token = try #require(signUp.json?["refreshToken"]?.stringValue)
        #expect(Self.code(await broker.firebase("POST", path, json: ["grant_type": "refresh_token"])) == "MISSING_REFRESH_TOKEN")
        #expect(Self.code(await broker.firebase("POST", path, json: ["refresh_token": .string(token)])) == "MISSING_GRANT_TYPE")
        #expect(
            Self.code(await broker.firebase("POST", path, json: ["grant_type": "password", "refresh_token": .string(token)]))
                == "INVALID_GRANT_TYPE")
        #expect(
            Self.code(await broker.firebase("POST", path, json: ["grant_type": "refresh_token", "refresh_token": "unknown"]))
                == "INVALID_REFRESH_TOKEN")
        // A native session's refresh token is not this listener's.
        let native = await broker.post("/v1/signin/password", ["email": "ios@example.com", "password": "secret-pass"])
        let nativeToken = try #require(native.json?["refreshToken"]?.stringValue)
        #expect(
            Self.code(await broker.firebase("POST", path, json: ["grant_type": "refresh_token", "refresh_token": .string(nativeToken)]))
                == "INVALID_REFRESH_TOKEN")

        _ = try await broker.store.update(id: AccountID(uid)) { $0.disabled = true }
        let disabled = await broker.firebase("POST", path, json: ["grant_type": "refresh_token", "refresh_token": .string(token)])
        #expect(disabled.status == 400)
        #expect(Self.code(disabled) == "USER_DISABLED")
        _ = try await broker.store.update(id: AccountID(uid)) { $0.disabled = false }
        // Refused refreshes rotated nothing: the token still works.
        let ok = await broker.firebase("POST", path, json: ["grant_type": "refresh_token", "refresh_token": .string(token)])
        #expect(ok.status == 200)
    }

    // MARK: The signed-in user

    @Test func setAccountInfoAndDeleteAccount() async throws {
        let broker = try await Self.start()
        let signUp = await Self.signUp(broker)
        let uid = try #require(signUp.json?["localId"]?.stringValue)
        let idToken = try #require(signUp.json?["idToken"]?.stringValue)
        let update = await Self.iOS(
            broker, "setAccountInfo",
            ["idToken": .string(idToken), "displayName": "New Name", "photoUrl": "https://example.com/p.png", "returnSecureToken": true])
        #expect(update.status == 200)
        #expect(update.json?["kind"]?.stringValue == "identitytoolkit#SetAccountInfoResponse")
        #expect(update.json?["displayName"]?.stringValue == "New Name")
        #expect(update.json?["photoUrl"]?.stringValue == "https://example.com/p.png")
        let newToken = try #require(update.json?["idToken"]?.stringValue)
        #expect(JWKSVerification.decode(newToken)?.claims["name"]?.stringValue == "New Name")
        #expect(await broker.store.account(id: AccountID(uid))?.displayName == "New Name")

        let cleared = await Self.iOS(broker, "setAccountInfo", ["idToken": .string(idToken), "deleteAttribute": ["DISPLAY_NAME"]])
        #expect(cleared.status == 200)
        #expect(cleared.json?["displayName"] == nil)
        let email = await Self.iOS(broker, "setAccountInfo", ["idToken": .string(idToken), "email": "x@example.com"])
        #expect(Self.code(email) == "OPERATION_NOT_ALLOWED")
        #expect(await broker.store.account(id: AccountID(uid))?.email == "ios@example.com")
        #expect(Self.code(await Self.iOS(broker, "setAccountInfo", ["displayName": "x"])) == "MISSING_ID_TOKEN")

        // updatePassword: the old sessions end, the new tokens work, the new password signs in.
        let oldRefresh = try #require(update.json?["refreshToken"]?.stringValue)
        let weak = await Self.iOS(broker, "setAccountInfo", ["idToken": .string(newToken), "password": "123", "returnSecureToken": true])
        #expect(weak.json?["error"]?["message"]?.stringValue?.hasPrefix("WEAK_PASSWORD") == true)
        #expect(await Self.iOS(broker, "getAccountInfo", ["idToken": .string(newToken)]).status == 200)
        let changed = await Self.iOS(
            broker, "setAccountInfo", ["idToken": .string(newToken), "password": "another-pass", "returnSecureToken": true])
        #expect(changed.status == 200)
        let changedToken = try #require(changed.json?["idToken"]?.stringValue)
        #expect(changed.json?["refreshToken"]?.stringValue?.isEmpty == false)
        #expect(Self.code(await Self.iOS(broker, "getAccountInfo", ["idToken": .string(newToken)])) == "TOKEN_EXPIRED")
        let stale = await broker.firebase(
            "POST", FirebaseEndpoints.secureTokenPath + "?key=k", json: ["grant_type": "refresh_token", "refresh_token": .string(oldRefresh)])
        #expect(Self.code(stale) == "TOKEN_EXPIRED")
        #expect(await Self.iOS(broker, "getAccountInfo", ["idToken": .string(changedToken)]).status == 200)
        #expect(await Self.iOS(broker, "verifyPassword", ["email": "ios@example.com", "password": "another-pass"]).status == 200)
        #expect(Self.code(await Self.iOS(broker, "verifyPassword", ["email": "ios@example.com", "password": "secret-pass"])) == "INVALID_LOGIN_CREDENTIALS")

        let deleted = await Self.iOS(broker, "deleteAccount", ["idToken": .string(changedToken)])
        #expect(deleted.status == 200)
        #expect(deleted.json?["kind"]?.stringValue == "identitytoolkit#DeleteAccountResponse")
        #expect(await broker.store.account(id: AccountID(uid)) == nil)
        let gone = await Self.iOS(broker, "getAccountInfo", ["idToken": .string(changedToken)])
        #expect(gone.status == 400)
        #expect(Self.code(gone) == "USER_NOT_FOUND")
    }

    @Test func badIDTokensOnLookup() async throws {
        let broker = try await Self.start()
        #expect(Self.code(await Self.iOS(broker, "getAccountInfo", [:])) == "MISSING_ID_TOKEN")
        #expect(Self.code(await Self.iOS(broker, "getAccountInfo", ["idToken": "forged.token.here"])) == "INVALID_ID_TOKEN")
        let native = await broker.post("/v1/signup", ["email": "n@example.com", "password": "secret-pass"])
        let nativeID = try #require(native.json?["idToken"]?.stringValue)
        #expect(Self.code(await Self.iOS(broker, "getAccountInfo", ["idToken": .string(nativeID)])) == "INVALID_ID_TOKEN")
        // And a Firebase ID token is not the native API's.
        let firebase = await Self.signUp(broker)
        let firebaseID = try #require(firebase.json?["idToken"]?.stringValue)
        #expect(await broker.get("/v1/me", headers: ["Authorization": "Bearer " + firebaseID]).status == 401)
    }
}
