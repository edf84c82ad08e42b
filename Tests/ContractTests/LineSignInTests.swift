import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@Suite struct LineSignInTests {
    static let userID = "U1234567890abcdef1234567890abcdef"

    @Test func anIDTokenAndAnAccessTokenReachTheSameAccount() async throws {
        try await withBroker { broker in
            let idToken = try broker.stubs.lineIDToken(
                claims: ["sub": .string(Self.userID), "name": "Brown", "picture": "https://profile.line-scdn.net/b"])
            let first = try await broker.lineIDTokenSignIn(idToken)
            #expect(first.status == 201)
            #expect(first.json?["user"]?["identities"]?.arrayValue?.first?["subject"] == .string(Self.userID))
            #expect(first.json?["user"]?["displayName"] == "Brown")
            let second = try await broker.lineAccessTokenSignIn(LineStubUser(userID: Self.userID, displayName: "Brown"))
            #expect(second.status == 200)
            #expect(second.uid == first.uid)
            let third = try await broker.lineIDTokenSignIn(try broker.stubs.lineIDToken(claims: ["sub": .string(Self.userID)]))
            #expect(third.status == 200)
            #expect(third.uid == first.uid)
            #expect(try await broker.count("accounts") == 1)
        }
    }

    @Test func theNonceIsCheckedAsForTheOthers() async throws {
        try await withBroker { broker in
            let token = try broker.stubs.lineIDToken(claims: ["nonce": .string(TestTokens.hashedNonce("n-1"))])
            let wrong = try await broker.lineIDTokenSignIn(token, rawNonce: "n-2")
            #expect(wrong.status == 401)
            #expect(wrong.errorCode == "NONCE_MISMATCH")
            try await broker.expectNothingStored()
            let right = try await broker.lineIDTokenSignIn(token, rawNonce: "n-1")
            #expect(right.status == 201)
        }
    }

    static let refusals: [TokenRefusal] = [
        TokenRefusal(name: "another channel's ID token", code: "INVALID_AUDIENCE") { stubs in
            try stubs.lineIDToken(claims: ["aud": "1659999999"])
        },
        TokenRefusal(name: "another issuer", code: "INVALID_ISSUER") { stubs in
            try stubs.lineIDToken(claims: ["iss": "https://access.line.me.evil.example"])
        },
        TokenRefusal(name: "expired", code: "TOKEN_EXPIRED") { stubs in
            let past = Int64(Date().timeIntervalSince1970) - 7200
            return try stubs.lineIDToken(claims: ["iat": .int(past), "exp": .int(past + 60)])
        },
        TokenRefusal(name: "forged signature (a stranger's P-256 key)", code: "INVALID_TOKEN") { stubs in
            try stubs.lineIDToken(claims: forgedClaims, signingKey: try P256PrivateKey.generate())
        },
        TokenRefusal(name: "HMAC keyed with the published key", code: "INVALID_TOKEN") { stubs in
            let key = stubs.line.current
            return TestTokens.signHS256(
                claims: StubProviders.claims(defaults: ["iss": "https://access.line.me", "aud": .string(StubProviders.lineChannelID)], overrides: forgedClaims),
                secret: [0x04] + key.key.publicKey.x + key.key.publicKey.y, kid: key.id)
        },
        TokenRefusal(name: "alg none", code: "INVALID_TOKEN") { stubs in
            TestTokens.unsigned(
                claims: StubProviders.claims(defaults: ["iss": "https://access.line.me", "aud": .string(StubProviders.lineChannelID)], overrides: forgedClaims),
                kid: stubs.line.current.id)
        },
        TokenRefusal(name: "RS256 (not LINE's algorithm) under LINE's kid", code: "INVALID_TOKEN") { stubs in
            try TestTokens.sign(
                claims: StubProviders.claims(defaults: ["iss": "https://access.line.me", "aud": .string(StubProviders.lineChannelID)], overrides: forgedClaims),
                key: try StubKeySet.sharedKey(index: 0), kid: stubs.line.current.id)
        },
        TokenRefusal(name: "a DER-encoded signature", code: "INVALID_TOKEN") { stubs in
            let token = try stubs.lineIDToken()
            let parts = token.split(separator: ".").map(String.init)
            let raw = try #require(Base64URL.decode(parts[2]))
            let der = [0x30, 0x44, 0x02, 0x20] + raw[..<32] + [0x02, 0x20] + raw[32...]
            return parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(der))
        },
    ]

    @Test(arguments: refusals)
    func refusedIDTokensStoreNothing(_ refusal: TokenRefusal) async throws {
        try await withBroker { broker in
            let response = try await broker.lineIDTokenSignIn(try refusal.token(broker.stubs))
            #expect(response.status == refusal.status)
            #expect(response.errorCode == refusal.code)
            try await broker.expectNothingStored()
        }
    }

    @Test func anAccessTokenOfAnotherChannelIsRefused() async throws {
        try await withBroker { broker in
            let response = try await broker.lineAccessTokenSignIn(LineStubUser(userID: Self.userID, channelID: "1659999999"))
            #expect(response.status == 401)
            #expect(response.errorCode == "INVALID_AUDIENCE")
            let spent = try await broker.lineAccessTokenSignIn(LineStubUser(userID: Self.userID, expiresIn: 0))
            #expect(spent.status == 401)
            #expect(spent.errorCode == "TOKEN_EXPIRED")
            try await broker.expectNothingStored()
        }
    }

    @Test func aLineEmailNeverLinks() async throws {
        try await withBroker(linkByVerifiedEmail: true) { broker in
            let google = try await broker.googleSignIn(["sub": "g-1", "email": "brown@example.jp", "email_verified": true])
            #expect(google.status == 201)
            let line = try await broker.lineIDTokenSignIn(
                try broker.stubs.lineIDToken(claims: ["email": "brown@example.jp", "email_verified": true]))
            #expect(line.status == 201)
            #expect(line.uid != google.uid)
            #expect(line.json?["user"]?["emailVerified"] == false)
        }
    }

    @Test(arguments: [StubFault.down, .misconfigured, .refusing])
    func lineAPIFailuresMapToTheContract(_ fault: StubFault) async throws {
        try await withBroker { broker in
            broker.stubs.setFault("line", fault)
            let response = try await broker.lineAccessTokenSignIn(LineStubUser(userID: Self.userID))
            let expected: (Int, String) =
                switch fault {
                case .misconfigured: (502, "PROVIDER_MISCONFIGURED")
                case .refusing: (401, "INVALID_TOKEN")
                default: (503, "PROVIDER_UNAVAILABLE")
                }
            #expect(response.status == expected.0)
            #expect(response.errorCode == expected.1)
            try await broker.expectNothingStored()
            // ID tokens are verified locally: LINE's API being down does not stop them.
            let local = try await broker.lineIDTokenSignIn(try broker.stubs.lineIDToken())
            #expect(local.status == 201)
        }
    }

    @Test func unreachableCertsAreUnavailable() async throws {
        try await withBroker(configure: { config in
            config.replacing(["providers", "line", "jwksUrl"], with: "http://127.0.0.1:9/certs")
        }) { broker in
            let response = try await broker.lineIDTokenSignIn(try broker.stubs.lineIDToken())
            #expect(response.status == 503)
            #expect(response.errorCode == "PROVIDER_UNAVAILABLE")
            try await broker.expectNothingStored()
        }
    }
}

extension JSONValue {
    /// The value with the member at `path` (object keys) set to `value`.
    func replacing(_ path: [String], with value: JSONValue) -> JSONValue {
        guard let key = path.first, case .object(var members) = self else { return path.isEmpty ? value : self }
        members[key] = (members[key] ?? .object([:])).replacing(Array(path.dropFirst()), with: value)
        return .object(members)
    }
}
