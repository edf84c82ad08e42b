import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Moving from SQLite to PostgreSQL as the README tells an operator to: stop the broker, run
/// `broker migrate-sqlite`, start it on PostgreSQL; users sign in to the same accounts.
@Suite("broker migrate-sqlite", .enabled(if: PostgresTestEnvironment.url != nil, "BROKER_TEST_POSTGRES_URL is not set (scripts/with-postgres.sh swift test sets it: docs/postgres.md#testing)"))
struct PostgresMigrateCommandTests {
    @Test func usersKeepTheirAccountsAcrossTheMove() async throws {
        let base = try #require(PostgresTestEnvironment.url)
        let schema = try await PostgresContractSchema.create(in: base)
        let directory = try ProcessTests.temporaryDirectory()
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let configPath = directory.appendingPathComponent("providers.json").path
            try Data(stubs.brokerConfig().serialized()).write(to: URL(fileURLWithPath: configPath))
            let sqlitePath = directory.appendingPathComponent("broker.sqlite").path
            let googleBody: JSONValue = [
                "idToken": .string(try stubs.idToken("google", claims: ["sub": "g-moving", "email": "mover@example.com", "email_verified": true]))
            ]

            let onSQLite = try await BrokerProcess.start(environment: ["BROKER_CONFIG": configPath, "BROKER_DATABASE": sqlitePath])
            let first = try await onSQLite.post("/v1/signin/google", googleBody)
            #expect(first.status == 201)
            let uid = try #require(first.json?["user"]?["uid"]?.stringValue)
            #expect(try await onSQLite.stop() == 0)

            // A password in the URL (ignored by the test cluster, which trusts loopback) must never be printed.
            let url = schema.url.replacingOccurrences(of: "postgres@", with: "postgres:pw-never-shown@")
            let move = try ProcessTests.spawn(["migrate-sqlite", "--from", sqlitePath, "--database", url])
            #expect(try await move.wait() == 0, "\(move.stderr)")
            #expect(move.stdout.contains("accounts: 1 row"), "\(move.stdout)")
            #expect(move.stdout.contains("identities: 1 row"))
            #expect(move.stdout.contains("signing_keys: 1 row"))
            #expect(!(move.stdout + move.stderr).contains("pw-never-shown"))

            // Run again: the target is no longer empty, so it is refused and nothing changes.
            let again = try ProcessTests.spawn(["migrate-sqlite", "--from=\(sqlitePath)", "--database", url])
            #expect(try await again.wait() == 1)
            #expect(again.stderr.contains("already holds rows"), "\(again.stderr)")
            #expect(!again.stderr.contains("pw-never-shown"))
            #expect(try await schema.count("accounts") == 1)

            let onPostgres = try await BrokerProcess.start(environment: ["BROKER_CONFIG": configPath, "BROKER_DATABASE": url])
            let later = try await onPostgres.post("/v1/signin/google", googleBody)
            #expect(later.status == 200)
            #expect(later.json?["user"]?["uid"]?.stringValue == uid)
            // The published signing key moved too: a token from before the move still verifies.
            let jwks = try #require(try await onPostgres.get("/.well-known/jwks.json").json)
            let before = try #require(first.json?["idToken"]?.stringValue)
            #expect(JWKSVerification.claims(of: before, jwks: jwks)?["sub"]?.stringValue == uid)
            #expect(!onPostgres.child.stderr.contains("pw-never-shown"))
            #expect(try await onPostgres.stop() == 0)
        } catch {
            await stubs.stop()
            await schema.drop()
            throw error
        }
        await stubs.stop()
        await schema.drop()
    }

    @Test func theTargetMustBePostgreSQLAndTheSourceMustExist() async throws {
        let notPostgres = try ProcessTests.spawn(["migrate-sqlite", "--from", "/nonexistent/broker.sqlite", "--database", "./x.sqlite"])
        #expect(try await notPostgres.wait() == 1)
        #expect(notPostgres.stderr.contains("--database"))
        let noSource = try ProcessTests.spawn(["migrate-sqlite", "--database", "postgres://127.0.0.1:1/x"])
        #expect(try await noSource.wait() == 1)
        #expect(noSource.stderr.contains("--from"))
        if let base = PostgresTestEnvironment.url {
            let schema = try await PostgresContractSchema.create(in: base)
            let missing = try ProcessTests.spawn(["migrate-sqlite", "--from", "/nonexistent/broker.sqlite", "--database", schema.url])
            #expect(try await missing.wait() == 1)
            #expect(missing.stderr.contains("no SQLite database at /nonexistent/broker.sqlite"), "\(missing.stderr)")
            // Refused before anything was written: not even the schema was made.
            #expect(try await schema.count("information_schema.tables", where: "table_schema = current_schema()") == 0)
            await schema.drop()
        }
    }
}
