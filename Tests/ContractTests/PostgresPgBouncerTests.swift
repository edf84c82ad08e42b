import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Two `broker serve` processes through a PgBouncer in `pool_mode = transaction` (contract section 17), as
/// Supabase, Heroku and RDS Proxy deployments run: consecutive transactions of one broker connection land on
/// different server connections, and one server connection serves both instances. Nothing may rely on a server
/// session: no named prepared statement, no `SET` or advisory lock outside a transaction, no startup `options`.
/// Runs when `BROKER_TEST_PGBOUNCER_URL` is set (`scripts/with-postgres.sh` with pgbouncer installed). The
/// outbox through the pooler is in ``MailTwoInstancesTests``.
@Suite(
    "PostgreSQL: two instances through PgBouncer",
    .enabled(
        if: PostgresTestEnvironment.pgbouncerURL != nil,
        "BROKER_TEST_PGBOUNCER_URL is not set (scripts/with-postgres.sh sets it when pgbouncer is installed)"))
struct PostgresPgBouncerTests {
    static let adminToken = "pgbouncer-admin-token-0123456789abcdef"

    @Test func signInsRacesRefreshesAndAdminReadsWorkThroughATransactionPooler() async throws {
        let base = try #require(PostgresTestEnvironment.pgbouncerURL)
        // Both start (migrations, the signing key) on server connections the other has used.
        try await PostgresMultiInstanceTests.withTwoInstances(
            on: base, environment: ["BROKER_ADMIN_TOKEN": Self.adminToken]
        ) { instances in
            let (a, b, stubs, schema) = (instances.a, instances.b, instances.stubs, instances.schema)
            let started = [a, b]

            // A race: concurrent first sign-ins of one identity through both make one account.
            let token = try stubs.idToken(
                "google", claims: ["sub": "g-pooled", "email": "pooled@example.com", "email_verified": true])
            let responses = try await withThrowingTaskGroup(of: InstanceResponse.self) { group in
                for index in 0..<10 {
                    let instance = index.isMultiple(of: 2) ? a : b
                    group.addTask { try await instance.post("/v1/signin/google", ["idToken": .string(token)]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.map(\.status).sorted() == [200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
            let uids = Set(responses.compactMap { $0.json?["user"]?["uid"]?.stringValue })
            #expect(uids.count == 1)
            let uid = try #require(uids.first)

            // Sign-ups and sign-ins with a password, alternating instances.
            for index in 0..<4 {
                let email = "pooled\(index)@example.com"
                let signUp = try await started[index % 2].post(
                    "/v1/signup", ["email": .string(email), "password": "pooled-password"])
                #expect(signUp.status == 201, "\(signUp.status) \(signUp.errorCode ?? "")")
                let signIn = try await started[(index + 1) % 2].post(
                    "/v1/signin/password", ["email": .string(email), "password": "pooled-password"])
                #expect(signIn.status == 200, "\(signIn.status) \(signIn.errorCode ?? "")")
            }

            // Refreshes: rotated at B, retried within the grace at A, the ID token verified at the other.
            let first = try #require(responses.first?.json?["refreshToken"]?.stringValue)
            let rotated = try await b.post("/v1/token", ["refreshToken": .string(first)])
            #expect(rotated.status == 200)
            let retried = try await a.post("/v1/token", ["refreshToken": .string(first)])
            #expect(retried.status == 200)
            let idToken = try #require(rotated.json?["idToken"]?.stringValue)
            let me = try await a.get("/v1/me", bearer: idToken)
            #expect(me.status == 200)
            #expect(me.json?["uid"]?.stringValue == uid)

            // Admin reads, at either instance.
            let users = try await a.get("/admin/v1/users?limit=50", bearer: Self.adminToken)
            #expect(users.status == 200)
            #expect(users.json?["users"]?.arrayValue?.count == 5)
            let user = try await b.get("/admin/v1/users/\(uid)", bearer: Self.adminToken)
            #expect(user.status == 200)
            #expect(user.json?["uid"]?.stringValue == uid)
            let audit = try await b.get("/admin/v1/audit?uid=\(uid)&limit=50", bearer: Self.adminToken)
            #expect(audit.status == 200)
            #expect(audit.json?["events"]?.arrayValue?.isEmpty == false)

            // A revocation at one instance holds at the other.
            let revoke = try await a.request("POST", "/admin/v1/users/\(uid)/revoke-sessions", bearer: Self.adminToken)
            #expect(revoke.status == 200 || revoke.status == 204, "\(revoke.status)")
            let second = try #require(rotated.json?["refreshToken"]?.stringValue)
            let refused = try await b.post("/v1/token", ["refreshToken": .string(second)])
            #expect(refused.status == 401)
            #expect(refused.errorCode == "INVALID_REFRESH_TOKEN")

            #expect(try await schema.count("accounts") == 5)
            #expect(try await schema.count("signing_keys") == 1)
            for process in started {
                #expect(!process.child.stderr.contains("prepared statement"), "\(process.child.stderr.suffix(2000))")
                #expect(!process.child.stderr.contains("\"status\":500"))
            }
        }
    }
}
