import BrokerCore
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@Suite struct KakaoProviderTests {
    let stubs: StubProviders

    init() throws { stubs = try StubProviders() }

    /// A Kakao provider whose HTTP calls are answered by `answer` (JWKS served from the stub's keys).
    func provider(
        _ answer: @escaping @Sendable (String) async throws -> HTTPClientResponse
    ) throws -> (any IdentityProvider, ScriptedHTTPClient) {
        let jwks = stubs.kakao.jwks
        let client = ScriptedHTTPClient { request in
            if request.url.hasSuffix("/jwks") { return ScriptedHTTPClient.json(200, jwks) }
            return try await answer(request.url)
        }
        let entry = try ConfigReader(
            path: "providers.kakao",
            value: [
                "appId": "123456", "apiBaseUrl": "https://kapi.example", "audiences": ["rest-key", "native-key"],
                "jwksUrl": "https://kauth.example/jwks",
            ])
        let context = ProviderContext(
            httpClient: client, clock: SystemClock(), metrics: Metrics(), logger: .disabled, clockSkew: 60,
            allowInsecureURLs: false)
        return (try KakaoProvider.make(id: ProviderID("kakao"), config: entry, context: context), client)
    }

    static func user(_ id: Int64, email: String? = "k@example.com", valid: Bool = true, verified: Bool = true) -> JSONValue {
        var account: [String: JSONValue] = ["profile": ["nickname": "Kim"]]
        if let email {
            account["email"] = .string(email)
            account["is_email_valid"] = .bool(valid)
            account["is_email_verified"] = .bool(verified)
        }
        return ["id": .int(id), "kakao_account": .object(account)]
    }

    static func normal(tokenApp: Int64 = 123456, tokenUser: Int64 = 77, meUser: Int64 = 77, email: String? = "k@example.com",
                       valid: Bool = true, verified: Bool = true) -> @Sendable (String) async throws -> HTTPClientResponse {
        { url in
            if url.hasSuffix("/v1/user/access_token_info") {
                return ScriptedHTTPClient.json(200, ["id": .int(tokenUser), "expires_in": 100, "app_id": .int(tokenApp)])
            }
            return ScriptedHTTPClient.json(200, user(meUser, email: email, valid: valid, verified: verified))
        }
    }

    @Test func anAccessTokenIsCheckedThenTheUserRead() async throws {
        let (provider, client) = try provider(Self.normal())
        let signIn = try await provider.verify(.accessToken("tok-1"), hints: .none)
        #expect(signIn.identity.provider == ProviderID("kakao"))
        #expect(signIn.identity.subject == "77")
        #expect(signIn.identity.email == "k@example.com")
        #expect(signIn.identity.emailVerified)
        #expect(signIn.identity.displayName == "Kim")
        #expect(client.requests.map(\.url) == [
            "https://kapi.example/v1/user/access_token_info", "https://kapi.example/v2/user/me",
        ])
        #expect(client.requests.allSatisfy { request in
            request.headers.contains { $0.name == "Authorization" && $0.value == "Bearer tok-1" } && request.timeout == 5
        })
    }

    @Test(arguments: [(true, false), (false, true), (false, false)])
    func anEmailIsVerifiedOnlyWhenValidAndVerified(_ flags: (Bool, Bool)) async throws {
        let (provider, _) = try provider(Self.normal(valid: flags.0, verified: flags.1))
        let signIn = try await provider.verify(.accessToken("tok"), hints: .none)
        #expect(signIn.identity.emailVerified == false)
    }

    @Test func aTokenOfAnotherAppIsRefusedBeforeTheUserIsRead() async throws {
        let (provider, client) = try provider(Self.normal(tokenApp: 999))
        let error = await #expect(throws: ProviderError.self) { try await provider.verify(.accessToken("t"), hints: .none) }
        #expect(error?.code == .rejected)
        #expect(error?.publicCode?.code == "KAKAO_APP_MISMATCH")
        #expect(error?.publicCode?.status == 401)
        #expect(client.requests.count == 1)
    }

    @Test func aUserWhoseIdDiffersFromTheTokensIsRefused() async throws {
        let (provider, _) = try provider(Self.normal(tokenUser: 77, meUser: 78))
        let error = await #expect(throws: ProviderError.self) { try await provider.verify(.accessToken("t"), hints: .none) }
        #expect(error?.code == .invalidToken)
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var code: Int64?
        var thrown: HTTPClientError?
        var expected: ProviderError.Code
        var testDescription: String { name }
    }

    static let failures: [Failure] = [
        Failure(name: "-401", status: 401, code: -401, expected: .invalidToken),
        Failure(name: "401 without a body", status: 401, code: nil, expected: .invalidToken),
        Failure(name: "401 with another code", status: 401, code: -2, expected: .invalidToken),
        Failure(name: "-3", status: 400, code: -3, expected: .misconfigured),
        Failure(name: "-5", status: 403, code: -5, expected: .misconfigured),
        Failure(name: "-1", status: 500, code: -1, expected: .unavailable),
        Failure(name: "-2", status: 400, code: -2, expected: .unavailable),
        Failure(name: "502", status: 502, code: nil, expected: .unavailable),
        Failure(name: "timeout", status: 0, code: nil, thrown: HTTPClientError(.timeout), expected: .unavailable),
        Failure(name: "refused", status: 0, code: nil, thrown: HTTPClientError(.connectionFailed), expected: .unavailable),
    ]

    @Test(arguments: failures)
    func kakaoErrorsMapAsTheContractSays(_ failure: Failure) async throws {
        let (provider, _) = try provider { _ in
            if let thrown = failure.thrown { throw thrown }
            var body: [String: JSONValue] = ["msg": "x"]
            if let code = failure.code { body["code"] = .int(code) }
            return ScriptedHTTPClient.json(failure.status, failure.code == nil ? .object([:]) : .object(body))
        }
        let error = await #expect(throws: ProviderError.self) { try await provider.verify(.accessToken("t"), hints: .none) }
        #expect(error?.code == failure.expected)
    }

    @Test(arguments: ["tok\r\nX-Evil: 1", "tok en", "tok\u{0}", String(repeating: "a", count: 4097)])
    func aTokenThatCannotBeABearerTokenIsInvalidWithoutACall(_ token: String) async throws {
        let (provider, client) = try provider(Self.normal())
        let error = await #expect(throws: ProviderError.self) { try await provider.verify(.accessToken(token), hints: .none) }
        #expect(error?.code == .invalidToken)
        #expect(client.requests.isEmpty)
    }

    @Test func bothPathsGiveTheSameSubject() async throws {
        let (provider, _) = try provider(Self.normal(tokenUser: 4_100_000_001, meUser: 4_100_000_001))
        let viaAccessToken = try await provider.verify(.accessToken("t"), hints: .none)
        let idToken = try stubs.idToken("kakao", claims: ["aud": "native-key", "sub": "4100000001"])
        let viaIDToken = try await provider.verify(.idToken(idToken, rawNonce: nil), hints: .none)
        #expect(viaAccessToken.identity.subject == "4100000001")
        #expect(viaIDToken.identity.subject == viaAccessToken.identity.subject)
    }

    @Test func idTokensAcceptEveryAppKeyAsAudienceButNoOther() async throws {
        let (provider, _) = try provider(Self.normal())
        for audience in ["rest-key", "native-key"] {
            let token = try stubs.idToken("kakao", claims: ["aud": .string(audience)])
            _ = try await provider.verify(.idToken(token, rawNonce: nil), hints: .none)
        }
        let foreign = try stubs.idToken("kakao", claims: ["aud": "someone-else"])
        let error = await #expect(throws: TokenError.self) { try await provider.verify(.idToken(foreign, rawNonce: nil), hints: .none) }
        #expect(error?.code == .invalidAudience)
        let notAnID = try stubs.idToken("kakao", claims: ["aud": "rest-key", "sub": "abc"])
        await #expect(throws: TokenError.self) { try await provider.verify(.idToken(notAnID, rawNonce: nil), hints: .none) }
    }
}
