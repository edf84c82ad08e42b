import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Naver, LINE and the generic OIDC entry in process, driven the way scripts and the bench drive
/// `stub-providers`: tokens and users from the stubs' control API, faults from `/control/{provider}`.
@Suite struct MoreProvidersInProcessTests {
    static func control(_ stubs: StubProviders, _ path: String, _ body: JSONValue) async throws -> JSONValue? {
        let response = try await stubs.inProcessClient().send(
            HTTPClientRequest(
                method: "POST", url: InProcessBroker.stubsBaseURL + path, headers: [("Content-Type", "application/json")],
                body: body.serialized()))
        return JSONValue.parse(response.body)
    }

    @Test func tokensFromTheControlAPISignIn() async throws {
        let broker = try await InProcessBroker.start()
        let stubs = broker.stubs
        let line = try #require(try await Self.control(stubs, "/line/token", ["claims": ["sub": "U00000000000000000000000000000001"]])?["token"])
        let lineAccess = try #require(
            try await Self.control(stubs, "/line/users", ["userId": "U00000000000000000000000000000001"])?["accessToken"])
        let oidc = try #require(try await Self.control(stubs, "/oidc/token", ["claims": ["sub": "e-1"], "alg": "ES256"])?["token"])
        let naver = try #require(try await Self.control(stubs, "/naver/users", ["id": "n-1", "nickname": "지민"])?["accessToken"])

        let first = await broker.post("/v1/signin/line", ["idToken": line])
        #expect(first.status == 201)
        let again = await broker.post("/v1/signin/line", ["accessToken": lineAccess])
        #expect(again.status == 200)
        #expect(again.json?["user"]?["uid"] == first.json?["user"]?["uid"])
        #expect(await broker.post("/v1/signin/corp", ["idToken": oidc]).status == 201)
        let naverSignIn = await broker.post("/v1/signin/naver", ["accessToken": naver])
        #expect(naverSignIn.status == 201)
        #expect(naverSignIn.json?["user"]?["displayName"] == "지민")
        #expect(await broker.store.listAccounts(filter: AccountFilter(), after: nil, limit: 10).count == 3)
    }

    @Test(arguments: TokenForgery.allCases)
    func forgedTokensFromTheControlAPIAreRefused(_ forgery: TokenForgery) async throws {
        let broker = try await InProcessBroker.start()
        for (provider, path) in [("line", "/v1/signin/line"), ("oidc", "/v1/signin/corp"), ("google", "/v1/signin/google")] {
            let token = try #require(
                try await Self.control(broker.stubs, "/\(provider)/token", ["claims": ["sub": "forged-1"], "forge": .string(forgery.rawValue)])?["token"])
            let response = await broker.post(path, ["idToken": token])
            #expect(response.status == 401, "\(provider) \(forgery)")
            #expect(response.errorCode == "INVALID_TOKEN", "\(provider) \(forgery)")
        }
        #expect(await broker.store.listAccounts(filter: AccountFilter(), after: nil, limit: 10).isEmpty)
    }

    @Test func faultsFromTheControlAPIApply() async throws {
        let broker = try await InProcessBroker.start()
        let stubs = broker.stubs
        _ = try await Self.control(stubs, "/control/naver", ["fault": "misconfigured"])
        let refused = await broker.post(
            "/v1/signin/naver", ["accessToken": .string(stubs.naverAccessToken(for: NaverStubUser(id: "n-2")))])
        #expect(refused.status == 502)
        #expect(refused.errorCode == "PROVIDER_MISCONFIGURED")
        _ = try await Self.control(stubs, "/control/naver", ["fault": "none"])
        let accepted = await broker.post(
            "/v1/signin/naver", ["accessToken": .string(stubs.naverAccessToken(for: NaverStubUser(id: "n-2")))])
        #expect(accepted.status == 201)
        #expect(await broker.store.listAccounts(filter: AccountFilter(), after: nil, limit: 10).count == 1)
    }
}
