import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The generic OpenID Connect entry of the stub config: `"corp": {"type": "oidc", "issuer": <stubs>/oidc,
/// "algorithms": ["RS256", "ES256"], "trustEmail": true}`.
@Suite struct OIDCSignInTests {
    @Test func aSignInByDiscoveryCreatesTheAccountAndAnES256TokenFindsIt() async throws {
        try await withBroker { broker in
            let first = try await broker.oidcSignIn(
                try broker.stubs.oidcIDToken(claims: ["sub": "emp-7", "email": "kim@corp.example", "email_verified": true, "name": "Kim"]))
            #expect(first.status == 201)
            let user = try #require(first.json?["user"])
            #expect(user["identities"]?.arrayValue?.first?["provider"] == "corp")
            #expect(user["identities"]?.arrayValue?.first?["subject"] == "emp-7")
            #expect(user["emailVerified"] == true)
            #expect(user["displayName"] == "Kim")
            let second = try await broker.oidcSignIn(try broker.stubs.oidcIDToken(claims: ["sub": "emp-7"], es256: true))
            #expect(second.status == 200)
            #expect(second.uid == first.uid)
            #expect(try await broker.count("accounts") == 1)
            // Discovery was fetched at start, once.
            #expect(broker.stubs.callCount("oidc") == 1)
            let metrics = String(decoding: try await broker.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains("# TYPE broker_discovery_refreshes_total counter"))
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("broker_discovery_refreshes_total{") }
            #expect(line?.contains(#"provider="corp""#) == true)
            #expect(line?.contains(#"outcome="ok""#) == true)
            #expect(line?.hasSuffix(" 1") == true)
        }
    }

    static let refusals: [TokenRefusal] = [
        TokenRefusal(name: "another client's token", code: "INVALID_AUDIENCE") { stubs in
            try stubs.oidcIDToken(claims: ["aud": "another-client"])
        },
        TokenRefusal(name: "another issuer", code: "INVALID_ISSUER") { stubs in
            try stubs.oidcIDToken(claims: ["iss": "https://accounts.google.com"])
        },
        TokenRefusal(name: "forged signature", code: "INVALID_TOKEN") { stubs in
            try TestTokens.sign(
                claims: StubProviders.claims(defaults: ["iss": .string(stubs.oidcIssuer), "aud": .string(StubProviders.oidcAudience)], overrides: forgedClaims),
                key: try StubKeySet.strangerKey(), kid: stubs.oidc.current.id)
        },
        TokenRefusal(name: "HMAC token", code: "INVALID_TOKEN") { stubs in
            TestTokens.signHS256(
                claims: StubProviders.claims(defaults: ["iss": .string(stubs.oidcIssuer), "aud": .string(StubProviders.oidcAudience)], overrides: forgedClaims),
                secret: stubs.oidc.current.key.publicKey.modulus, kid: stubs.oidc.current.id)
        },
        TokenRefusal(name: "ES256 header on the RSA key's kid", code: "INVALID_TOKEN") { stubs in
            try TestTokens.signES256(
                claims: StubProviders.claims(defaults: ["iss": .string(stubs.oidcIssuer), "aud": .string(StubProviders.oidcAudience)], overrides: forgedClaims),
                key: stubs.oidcEC.current.key, kid: stubs.oidc.current.id)
        },
    ]

    @Test(arguments: refusals)
    func refusedTokensStoreNothing(_ refusal: TokenRefusal) async throws {
        try await withBroker { broker in
            let response = try await broker.oidcSignIn(try refusal.token(broker.stubs))
            #expect(response.status == refusal.status)
            #expect(response.errorCode == refusal.code)
            try await broker.expectNothingStored()
        }
    }

    @Test func onlyTheConfiguredAlgorithmsAreAccepted() async throws {
        // The entry without "algorithms" takes RS256 only: an ES256 token from the same issuer is refused.
        try await withBroker(configure: { config in
            config.replacing(["providers", "corp", "algorithms"], with: .null)
        }) { broker in
            let es256 = try await broker.oidcSignIn(try broker.stubs.oidcIDToken(es256: true))
            #expect(es256.status == 401)
            #expect(es256.errorCode == "INVALID_TOKEN")
            try await broker.expectNothingStored()
            #expect(try await broker.oidcSignIn(try broker.stubs.oidcIDToken()).status == 201)
        }
    }

    @Test func anUnverifiedEmailNeverLinks() async throws {
        try await withBroker(linkByVerifiedEmail: true) { broker in
            let google = try await broker.googleSignIn(["sub": "g-1", "email": "kim@corp.example", "email_verified": true])
            let unverified = try await broker.oidcSignIn(
                try broker.stubs.oidcIDToken(claims: ["sub": "emp-1", "email": "kim@corp.example", "email_verified": false]))
            #expect(unverified.status == 201)
            #expect(unverified.uid != google.uid)
            #expect(unverified.json?["user"]?["emailVerified"] == false)
            // With trustEmail, a verified one links (linking.byVerifiedEmail is on here).
            let verified = try await broker.oidcSignIn(
                try broker.stubs.oidcIDToken(claims: ["sub": "emp-2", "email": "kim@corp.example", "email_verified": true]))
            #expect(verified.status == 200)
            #expect(verified.uid == google.uid)
        }
    }

    @Test func withoutTrustEmailEvenAVerifiedEmailIsNot() async throws {
        try await withBroker(linkByVerifiedEmail: true, configure: { config in
            config.replacing(["providers", "corp", "trustEmail"], with: false)
        }) { broker in
            let google = try await broker.googleSignIn(["sub": "g-1", "email": "kim@corp.example", "email_verified": true])
            let response = try await broker.oidcSignIn(
                try broker.stubs.oidcIDToken(claims: ["sub": "emp-1", "email": "kim@corp.example", "email_verified": true]))
            #expect(response.status == 201)
            #expect(response.uid != google.uid)
            #expect(response.json?["user"]?["emailVerified"] == false)
            let stored = try #require(try await broker.store.account(provider: ProviderID("google"), subject: "g-1"))
            #expect(stored.identities.count == 1)
        }
    }

    @Test func anUnreachableDiscoveryDoesNotStopTheBrokerAndAnswersUnavailable() async throws {
        try await withBroker(configure: { config in
            let base = config["providers"]?["corp"]?["issuer"]?.stringValue ?? ""
            return config.replacing(
                ["providers", "gone"], with: ["type": "oidc", "issuer": .string(base + "-gone"), "audiences": ["c"]])
        }) { broker in
            let response = try await broker.oidcSignIn(try broker.stubs.oidcIDToken(claims: ["aud": "c"]), provider: "gone")
            #expect(response.status == 503)
            #expect(response.errorCode == "PROVIDER_UNAVAILABLE")
            #expect(response.headers["retry-after"] == "5")
            try await broker.expectNothingStored()
            #expect(try await broker.oidcSignIn(try broker.stubs.oidcIDToken()).status == 201)
        }
    }

    @Test func aDiscoveryDocumentNamingAnotherIssuerIsRefused() async throws {
        // The configured issuer has a trailing "/": the document says it without one, so they differ.
        try await withBroker(configure: { config in
            let base = config["providers"]?["corp"]?["issuer"]?.stringValue ?? ""
            return config.replacing(["providers", "corp", "issuer"], with: .string(base + "/"))
        }) { broker in
            let response = try await broker.oidcSignIn(try broker.stubs.oidcIDToken())
            #expect(response.status == 502)
            #expect(response.errorCode == "PROVIDER_MISCONFIGURED")
            try await broker.expectNothingStored()
        }
    }

    @Test func anAccessTokenIsNotAnOIDCCredential() async throws {
        try await withBroker { broker in
            let response = try await broker.post("/v1/signin/corp", ["accessToken": "abc"])
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
            try await broker.expectNothingStored()
        }
    }
}
