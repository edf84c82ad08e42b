import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Runs `body` against a fresh broker and stubs, stopping them afterwards whatever happens.
func withBroker<T>(
    serviceAccount: Bool = false, kakaoMapping: String = "link", linkByVerifiedEmail: Bool = false,
    clock: any Clock = SystemClock(), adminToken: String? = nil, configure: @Sendable (JSONValue) -> JSONValue = { $0 },
    _ body: (BrokerHarness) async throws -> T
) async throws -> T {
    let harness = try await BrokerHarness.start(
        serviceAccount: serviceAccount, kakaoMapping: kakaoMapping, linkByVerifiedEmail: linkByVerifiedEmail,
        clock: clock, adminToken: adminToken, configure: configure)
    return try await harness.stopping(after: body)
}

extension BrokerHarness {
    /// Signs in with a Google ID token carrying `claims`.
    func googleSignIn(_ claims: [String: JSONValue] = [:], rawNonce: String? = nil) async throws -> TestResponse {
        var body: [String: JSONValue] = ["idToken": .string(try stubs.idToken("google", claims: claims))]
        if let rawNonce { body["rawNonce"] = .string(rawNonce) }
        return try await post("/v1/signin/google", .object(body))
    }

    /// Signs in with a Kakao access token of `user`.
    func kakaoSignIn(_ user: KakaoStubUser) async throws -> TestResponse {
        try await post("/v1/signin/kakao", ["accessToken": .string(stubs.kakaoAccessToken(for: user))])
    }

    /// How many accounts the store holds for these identities (each nil or one).
    func isLinked(_ provider: String, _ subject: String) async throws -> Bool {
        try await store.account(provider: ProviderID(provider), subject: subject) != nil
    }

    /// The broker's published JWKS.
    func jwks() async throws -> JSONValue {
        try #require(try await get("/.well-known/jwks.json").json)
    }
}
