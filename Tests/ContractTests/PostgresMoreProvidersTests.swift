import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Naver, LINE and a generic OIDC provider against `broker serve` on PostgreSQL: the same sign-ins and refusals
/// as on SQLite, with what was stored counted in the schema. Runs when `BROKER_TEST_POSTGRES_URL` is set.
@Suite("PostgreSQL: Naver, LINE, OIDC", .enabled(if: PostgresTestEnvironment.url != nil, "BROKER_TEST_POSTGRES_URL is not set (scripts/with-postgres.sh swift test sets it: docs/postgres.md#testing)"))
struct PostgresMoreProvidersTests {
    struct Running {
        let broker: BrokerProcess
        let stubs: StubProviders
        let schema: PostgresContractSchema
    }

    func withBroker(linkByVerifiedEmail: Bool = false, _ body: (Running) async throws -> Void) async throws {
        let base = try #require(PostgresTestEnvironment.url)
        let schema = try await PostgresContractSchema.create(in: base)
        let directory = try ProcessTests.temporaryDirectory()
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        var broker: BrokerProcess?
        func cleanUp() async {
            _ = try? await broker?.stop()
            await stubs.stop()
            await schema.drop()
            try? FileManager.default.removeItem(at: directory)
        }
        do {
            let configPath = directory.appendingPathComponent("providers.json").path
            try Data(stubs.brokerConfig(linkByVerifiedEmail: linkByVerifiedEmail).serialized())
                .write(to: URL(fileURLWithPath: configPath))
            broker = try await BrokerProcess.start(environment: ["BROKER_CONFIG": configPath, "BROKER_DATABASE": schema.url])
            try await body(Running(broker: try #require(broker), stubs: stubs, schema: schema))
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    @Test func eachProviderSignsInTwiceToOneAccount() async throws {
        try await withBroker { running in
            let stubs = running.stubs
            let naver = NaverStubUser(id: "32742776", email: "jimin@naver.com", nickname: "지민")
            let line = "U1234567890abcdef1234567890abcdef"
            let pairs: [(String, JSONValue, JSONValue)] = [
                ("naver", ["accessToken": .string(stubs.naverAccessToken(for: naver))],
                 ["accessToken": .string(stubs.naverAccessToken(for: naver))]),
                ("line", ["idToken": .string(try stubs.lineIDToken(claims: ["sub": .string(line)]))],
                 ["accessToken": .string(stubs.lineAccessToken(for: LineStubUser(userID: line)))]),
                (StubProviders.oidcProviderID, ["idToken": .string(try stubs.oidcIDToken(claims: ["sub": "emp-1"]))],
                 ["idToken": .string(try stubs.oidcIDToken(claims: ["sub": "emp-1"], es256: true))]),
            ]
            for (provider, firstBody, secondBody) in pairs {
                let first = try await running.broker.post("/v1/signin/\(provider)", firstBody)
                #expect(first.status == 201, "\(provider)")
                let second = try await running.broker.post("/v1/signin/\(provider)", secondBody)
                #expect(second.status == 200, "\(provider)")
                #expect(second.json?["user"]?["uid"] == first.json?["user"]?["uid"], "\(provider)")
            }
            #expect(try await running.schema.count("accounts") == 3)
            #expect(try await running.schema.count("identities") == 3)
        }
    }

    @Test func refusalsStoreNothing() async throws {
        try await withBroker { running in
            let stubs = running.stubs
            let refusals: [(String, JSONValue, Int, String)] = [
                ("line", ["idToken": .string(try stubs.lineIDToken(signingKey: try P256PrivateKey.generate()))], 401, "INVALID_TOKEN"),
                ("line", ["idToken": .string(try stubs.lineIDToken(claims: ["aud": "1659999999"]))], 401, "INVALID_AUDIENCE"),
                ("line", ["accessToken": .string(stubs.lineAccessToken(for: LineStubUser(userID: "U1", channelID: "1659999999")))],
                 401, "INVALID_AUDIENCE"),
                (StubProviders.oidcProviderID, ["idToken": .string(try stubs.oidcIDToken(claims: ["iss": "https://evil.example"]))],
                 401, "INVALID_ISSUER"),
                (StubProviders.oidcProviderID,
                 ["idToken": .string(TestTokens.signHS256(claims: ["sub": "x"], secret: [1, 2, 3], kid: stubs.oidc.current.id))],
                 401, "INVALID_TOKEN"),
                ("naver", ["accessToken": "AAAAN-never-issued"], 401, "INVALID_TOKEN"),
            ]
            for (provider, body, status, code) in refusals {
                let response = try await running.broker.post("/v1/signin/\(provider)", body)
                #expect(response.status == status, "\(provider) \(code)")
                #expect(response.errorCode == code, "\(provider) \(code)")
            }
            stubs.setFault("naver", .down)
            let down = try await running.broker.post(
                "/v1/signin/naver", ["accessToken": .string(stubs.naverAccessToken(for: NaverStubUser(id: "1")))])
            #expect(down.status == 503)
            #expect(down.errorCode == "PROVIDER_UNAVAILABLE")
            #expect(try await running.schema.count("accounts") == 0)
            #expect(try await running.schema.count("identities") == 0)
            #expect(try await running.schema.count("refresh_tokens") == 0)
        }
    }

    @Test func unverifiedEmailsDoNotLink() async throws {
        try await withBroker(linkByVerifiedEmail: true) { running in
            let stubs = running.stubs
            let google = try await running.broker.post(
                "/v1/signin/google",
                ["idToken": .string(try stubs.idToken("google", claims: ["sub": "g-1", "email": "a@example.com", "email_verified": true]))])
            #expect(google.status == 201)
            let bodies: [(String, JSONValue)] = [
                ("naver", ["accessToken": .string(stubs.naverAccessToken(for: NaverStubUser(id: "n-1", email: "a@example.com")))]),
                ("line", ["idToken": .string(try stubs.lineIDToken(claims: ["email": "a@example.com"]))]),
                (StubProviders.oidcProviderID,
                 ["idToken": .string(try stubs.oidcIDToken(claims: ["email": "a@example.com", "email_verified": false]))]),
            ]
            for (provider, body) in bodies {
                let response = try await running.broker.post("/v1/signin/\(provider)", body)
                #expect(response.status == 201, "\(provider)")
                #expect(response.json?["user"]?["uid"] != google.json?["user"]?["uid"], "\(provider)")
            }
            #expect(try await running.schema.count("identities") == 4)
            #expect(try await running.schema.count("accounts") == 4)
        }
    }
}
