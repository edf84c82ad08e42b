import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

extension BrokerHarness {
    /// Signs in with a Naver access token of `user`.
    func naverSignIn(_ user: NaverStubUser) async throws -> TestResponse {
        try await post("/v1/signin/naver", ["accessToken": .string(stubs.naverAccessToken(for: user))])
    }

    /// Signs in with a LINE access token of `user`.
    func lineAccessTokenSignIn(_ user: LineStubUser) async throws -> TestResponse {
        try await post("/v1/signin/line", ["accessToken": .string(stubs.lineAccessToken(for: user))])
    }

    /// Signs in with a LINE ID token.
    func lineIDTokenSignIn(_ token: String, rawNonce: String? = nil) async throws -> TestResponse {
        var body: [String: JSONValue] = ["idToken": .string(token)]
        if let rawNonce { body["rawNonce"] = .string(rawNonce) }
        return try await post("/v1/signin/line", .object(body))
    }

    /// Signs in at the generic OIDC entry `provider` with `token`.
    func oidcSignIn(_ token: String, provider: String = StubProviders.oidcProviderID) async throws -> TestResponse {
        try await post("/v1/signin/\(provider)", ["idToken": .string(token)])
    }

    /// Nothing was stored: no account, identity or session.
    func expectNothingStored(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await count("accounts") == 0, sourceLocation: sourceLocation)
        #expect(try await count("identities") == 0, sourceLocation: sourceLocation)
        #expect(try await count("refresh_tokens") == 0, sourceLocation: sourceLocation)
    }
}

extension TestResponse {
    /// `user.uid` of a session body.
    var uid: String? { json?["user"]?["uid"]?.stringValue }
}

/// A refused ID token: its name, the status and code the broker must answer, and how to make it.
struct TokenRefusal: Sendable, CustomTestStringConvertible {
    var name: String
    var status: Int = 401
    var code: String
    var token: @Sendable (StubProviders) throws -> String
    var testDescription: String { name }
}

/// Claims that cannot be told apart from a real user's except by the signature.
let forgedClaims: [String: JSONValue] = ["sub": "U0000000000000000000000000000dead", "email": "victim@example.com"]
