import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@Suite struct GoogleSignInTests {
    @Test func aFirstSignInCreatesTheAccountAndLaterOnesFindIt() async throws {
        try await withBroker { broker in
            let claims: [String: JSONValue] = [
                "sub": "g-100", "email": "Jiwoo@Example.com", "email_verified": true, "name": "Jiwoo",
                "picture": "https://example.com/p.png",
            ]
            let first = try await broker.googleSignIn(claims)
            #expect(first.status == 201)
            let body = try #require(first.json)
            #expect(body["isNewUser"] == true)
            #expect(body["expiresIn"] == 3600)
            #expect(body["customToken"] == nil)
            #expect(body["refreshToken"]?.stringValue?.isEmpty == false)
            let user = try #require(body["user"])
            let uid = try #require(user["uid"]?.stringValue)
            #expect(user["email"] == "Jiwoo@Example.com")
            #expect(user["emailVerified"] == true)
            #expect(user["displayName"] == "Jiwoo")
            #expect(user["photoUrl"] == "https://example.com/p.png")
            #expect(user["disabled"] == false)
            #expect(user["identities"]?.arrayValue?.count == 1)
            #expect(user["identities"]?.arrayValue?.first?["provider"] == "google")
            #expect(user["identities"]?.arrayValue?.first?["subject"] == "g-100")
            #expect(user["createdAt"]?.stringValue?.hasSuffix("Z") == true)

            let second = try await broker.googleSignIn(claims)
            #expect(second.status == 200)
            #expect(second.json?["isNewUser"] == false)
            #expect(second.json?["user"]?["uid"]?.stringValue == uid)
            #expect(try await broker.count("accounts") == 1)
            #expect(try await broker.count("refresh_tokens") == 2)
        }
    }

    @Test func theIDTokenVerifiesWithThePublishedKeys() async throws {
        try await withBroker { broker in
            let response = try await broker.googleSignIn(["sub": "g-1", "email": "a@example.com", "email_verified": true])
            let idToken = try #require(response.json?["idToken"]?.stringValue)
            let discovery = try #require(try await broker.get("/.well-known/openid-configuration").json)
            #expect(discovery["issuer"]?.stringValue == broker.baseURL)
            #expect(discovery["jwks_uri"]?.stringValue == broker.baseURL + "/.well-known/jwks.json")
            #expect(discovery["token_endpoint"] == nil)  // /v1/token is not an OAuth 2.0 token endpoint
            #expect(discovery["id_token_signing_alg_values_supported"] == ["ES256"])
            let claims = try #require(JWKSVerification.claims(of: idToken, jwks: try await broker.jwks()))
            #expect(claims["iss"]?.stringValue == broker.baseURL)
            #expect(claims["aud"] == "stub-project")
            #expect(claims["sub"] == response.json?["user"]?["uid"])
            #expect(claims["email"] == "a@example.com")
            #expect(claims["email_verified"] == true)
            #expect(claims["sign_in_provider"] == "google")
            let issued = try #require(claims["iat"]?.intValue)
            #expect(claims["exp"]?.intValue == issued + 3600)
            #expect(claims["auth_time"]?.intValue != nil)
            #expect(JWKSVerification.decode(idToken)?.header["alg"] == "ES256")
        }
    }

    @Test func aServiceAccountAddsAFirebaseCustomToken() async throws {
        try await withBroker(serviceAccount: true) { broker in
            let response = try await broker.googleSignIn(["sub": "g-2"])
            #expect(response.status == 201)
            let token = try #require(response.json?["customToken"]?.stringValue)
            let jwt = try JWT(parsing: token)
            #expect(jwt.header["alg"] == "RS256")
            #expect(jwt.header["kid"]?.stringValue == TestServiceAccount.privateKeyID)
            #expect(try TestServiceAccount.key().publicKey.verifySHA256(signature: jwt.signature, message: jwt.signingInput))
            #expect(jwt.claims["iss"]?.stringValue == TestServiceAccount.clientEmail)
            #expect(jwt.claims["sub"]?.stringValue == TestServiceAccount.clientEmail)
            #expect(jwt.claims["aud"]?.stringValue == FirebaseCustomTokenMinter.audience)
            #expect(jwt.claims["uid"] == response.json?["user"]?["uid"])
            let issued = try #require(jwt.claims["iat"]?.intValue)
            let expiry = try #require(jwt.claims["exp"]?.intValue)
            #expect(expiry > issued && expiry - issued <= 3600)
        }
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var code: String
        var token: @Sendable (StubProviders) throws -> String
        var rawNonce: String? = nil
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "expired", status: 401, code: "TOKEN_EXPIRED") { stubs in
            let past = Int64(Date().timeIntervalSince1970) - 7200
            return try stubs.idToken("google", claims: ["sub": "bad", "iat": .int(past), "exp": .int(past + 60)])
        },
        Refusal(name: "another audience", status: 401, code: "INVALID_AUDIENCE") { stubs in
            try stubs.idToken("google", claims: ["sub": "bad", "aud": "someone-else.apps.googleusercontent.com"])
        },
        Refusal(name: "another issuer", status: 401, code: "INVALID_ISSUER") { stubs in
            try stubs.idToken("google", claims: ["sub": "bad", "iss": "https://evil.example"])
        },
        Refusal(name: "Apple's token at Google", status: 401, code: "INVALID_TOKEN") { stubs in
            try stubs.idToken("apple", claims: ["sub": "bad", "iss": "https://accounts.google.com", "aud": .string(StubProviders.googleAudience)])
        },
        Refusal(name: "signed by a stranger", status: 401, code: "INVALID_TOKEN") { stubs in
            try stubs.idToken("google", claims: ["sub": "bad"], signingKey: try StubKeySet.strangerKey())
        },
        Refusal(name: "jku header", status: 401, code: "INVALID_TOKEN") { stubs in
            try stubs.idToken("google", claims: ["sub": "bad"], header: ["jku": "http://127.0.0.1:1/keys"])
        },
        Refusal(name: "embedded jwk", status: 401, code: "INVALID_TOKEN") { stubs in
            try stubs.idToken("google", claims: ["sub": "bad"], header: ["jwk": ["kty": "RSA"]])
        },
        Refusal(name: "published weak key", status: 401, code: "INVALID_TOKEN") { stubs in
            let weak = try stubs.google.publishWeakKey()
            return try stubs.idToken("google", claims: ["sub": "bad"], signingKey: weak, kid: "google-weak")
        },
        Refusal(name: "nonce mismatch", status: 401, code: "NONCE_MISMATCH", token: { stubs in
            try stubs.idToken("google", claims: ["sub": "bad", "nonce": .string(TestTokens.hashedNonce("one"))])
        }, rawNonce: "two"),
        Refusal(name: "not a JWT", status: 401, code: "INVALID_TOKEN") { _ in "not-a-token" },
    ]

    @Test(arguments: refusals)
    func aRefusedTokenStoresNothing(_ refusal: Refusal) async throws {
        try await withBroker { broker in
            var body: [String: JSONValue] = ["idToken": .string(try refusal.token(broker.stubs))]
            if let rawNonce = refusal.rawNonce { body["rawNonce"] = .string(rawNonce) }
            let response = try await broker.post("/v1/signin/google", .object(body))
            #expect(response.status == refusal.status)
            #expect(response.errorCode == refusal.code)
            #expect(response.json?["error"]?["message"]?.stringValue?.isEmpty == false)
            #expect(try await broker.count("accounts") == 0)
            #expect(try await broker.count("identities") == 0)
            #expect(try await broker.count("refresh_tokens") == 0)
        }
    }

    @Test func aMatchingNonceIsAccepted() async throws {
        try await withBroker { broker in
            let response = try await broker.googleSignIn(
                ["sub": "g-n", "nonce": .string(TestTokens.hashedNonce("raw-1"))], rawNonce: "raw-1")
            #expect(response.status == 201)
        }
    }

    @Test func badRequestsAreRefusedBeforeAnyWork() async throws {
        try await withBroker { broker in
            let malformed = try await broker.request("POST", "/v1/signin/google", body: Array("{not json".utf8))
            #expect(malformed.status == 400)
            #expect(malformed.errorCode == "INVALID_REQUEST")
            let missing = try await broker.post("/v1/signin/google", ["token": "x"])
            #expect(missing.status == 400)
            #expect(missing.errorCode == "INVALID_REQUEST")
            let wrongType = try await broker.post("/v1/signin/google", ["idToken": 42])
            #expect(wrongType.errorCode == "INVALID_REQUEST")
            let array = try await broker.post("/v1/signin/google", ["idToken"])
            #expect(array.errorCode == "INVALID_REQUEST")
            let unknown = try await broker.post("/v1/signin/facebook", ["idToken": "x"])
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "PROVIDER_NOT_ENABLED")
            #expect(try await broker.count("accounts") == 0)
        }
    }

    @Test func aDisabledProviderIsNotEnabled() async throws {
        try await withBroker(configure: { config in
            guard case .object(var top) = config, case .object(var providers)? = top["providers"],
                case .object(var google)? = providers["google"]
            else { return config }
            google["enabled"] = false
            providers["google"] = .object(google)
            top["providers"] = .object(providers)
            return .object(top)
        }) { broker in
            let response = try await broker.googleSignIn(["sub": "g-x"])
            #expect(response.status == 404)
            #expect(response.errorCode == "PROVIDER_NOT_ENABLED")
        }
    }

    @Test func aDisabledUserCannotSignIn() async throws {
        try await withBroker { broker in
            let first = try await broker.googleSignIn(["sub": "g-d"])
            let uid = AccountID(try #require(first.json?["user"]?["uid"]?.stringValue))
            _ = try await broker.store.update(id: uid) { $0.disabled = true }
            let lastSignIn = try await broker.store.account(id: uid)?.lastSignInAt
            let refused = try await broker.googleSignIn(["sub": "g-d"])
            #expect(refused.status == 403)
            #expect(refused.errorCode == "USER_DISABLED")
            #expect(try await broker.store.account(id: uid)?.lastSignInAt == lastSignIn)
            #expect(try await broker.count("refresh_tokens") == 1)
        }
    }
}
