import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// An OpenID Connect provider managed at run time, on two `broker serve` processes sharing one PostgreSQL
/// database (issue 33): created, disabled and deleted on one instance, it counts on the other at once (the contract
/// allows 10 s; nothing is cached beyond a sign-in's own read).
@Suite(
    "PostgreSQL: run-time providers on two instances",
    .enabled(
        if: PostgresTestEnvironment.url != nil,
        "BROKER_TEST_POSTGRES_URL is not set (scripts/with-postgres.sh swift test sets it: docs/postgres.md#testing)"))
struct PostgresStoredProviderTests {
    static let token = "two-instance-admin-token-0123456789abc"

    @Test func aProviderCreatedOnOneInstanceSignsInOnTheOtherUntilItIsDisabledOrDeleted() async throws {
        try await PostgresMultiInstanceTests.withTwoInstances(
            on: try #require(PostgresTestEnvironment.url), environment: ["BROKER_ADMIN_TOKEN": Self.token]
        ) { instances in
            let (a, b, stubs) = (instances.a, instances.b, instances.stubs)
            func signIn(_ instance: BrokerProcess, _ sub: String) async throws -> InstanceResponse {
                let token = try stubs.oidcIDToken(claims: ["aud": "two-instance-client", "sub": .string(sub)])
                return try await instance.post("/v1/signin/acme", ["idToken": .string(token)])
            }
            // Unknown to both before it is created.
            #expect(try await signIn(b, "u1").status == 404)
            let made = try await a.request(
                "POST", "/admin/v1/providers",
                json: ["id": "acme", "clientId": "two-instance-client", "issuer": .string(stubs.oidcIssuer)],
                bearer: Self.token)
            #expect(made.status == 201)
            let first = try await signIn(b, "u1")
            #expect(first.status == 201)
            #expect(try await signIn(a, "u1").status == 200)

            let disabled = try await b.request(
                "PATCH", "/admin/v1/providers/acme", json: ["enabled": false], bearer: Self.token)
            #expect(disabled.status == 200)
            for instance in [a, b] {
                let refused = try await signIn(instance, "u2")
                #expect(refused.status == 404)
                #expect(refused.json?["error"]?["code"] == "PROVIDER_NOT_ENABLED")
            }
            #expect(try await instances.schema.count("accounts") == 1)

            #expect(
                try await a.request("PATCH", "/admin/v1/providers/acme", json: ["enabled": true], bearer: Self.token)
                    .status == 200)
            #expect(try await signIn(b, "u1").status == 200)
            #expect(try await a.request("DELETE", "/admin/v1/providers/acme", bearer: Self.token).status == 204)
            let refused = try await signIn(b, "u3")
            #expect(refused.status == 404)
            #expect(refused.json?["error"]?["code"] == "PROVIDER_NOT_ENABLED")
            #expect(try await instances.schema.count("accounts") == 1)
            #expect(try await instances.schema.count("audit_events", where: "action = 'provider_config'") == 4)
        }
    }
}
