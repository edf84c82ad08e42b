import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Two `broker serve` processes on one database and one SMTP server: resets asked for through either are
/// each mailed exactly once, by one of them. On a SQLite file always; on PostgreSQL when
/// `BROKER_TEST_POSTGRES_URL` is set, and through a transaction-pooling PgBouncer when `BROKER_TEST_PGBOUNCER_URL` is.
@Suite(
    "Mail from two instances on one database",
    .enabled(if: SMTPTestServer.isAvailable, "python3-aiosmtpd is not installed (scripts/setup-debian installs it)"),
    .serialized)
struct MailTwoInstancesTests {
    enum Backend: String, Sendable, CaseIterable { case sqliteFile, postgres, pgbouncer }

    static var backends: [Backend] {
        [.sqliteFile] + (PostgresTestEnvironment.url != nil ? [.postgres] : [])
            + (PostgresTestEnvironment.pgbouncerURL != nil ? [.pgbouncer] : [])
    }

    @Test(arguments: backends)
    func resetsThroughBothInstancesAreEachMailedOnce(backend: Backend) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        let smtp = try await SMTPTestServer()
        var schema: PostgresContractSchema?
        var started: [BrokerProcess] = []
        func cleanUp() async {
            for process in started { _ = try? await process.stop() }
            smtp.stop()
            await schema?.drop()
            try? FileManager.default.removeItem(at: directory)
        }
        do {
            let database: String
            let base = backend == .pgbouncer ? PostgresTestEnvironment.pgbouncerURL : PostgresTestEnvironment.url
            if backend != .sqliteFile, let base {
                let created = try await PostgresContractSchema.create(in: base)
                schema = created
                database = created.url
            } else {
                database = directory.appendingPathComponent("b.sqlite").path
            }
            let document = ConfigEdit.set(
                StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9", issuer: "https://auth.example.test"),
                ["mail"],
                ["smtpUrl": .string("smtp://127.0.0.1:\(smtp.port)"), "from": "Demo <no-reply@example.com>"])
            let configPath = directory.appendingPathComponent("providers.json").path
            try Data(document.serialized()).write(to: URL(fileURLWithPath: configPath))
            let environment = [
                "BROKER_CONFIG": configPath, "BROKER_DATABASE": database, "BROKER_DATABASE_POOL_SIZE": "3",
            ]
            started.append(try await BrokerProcess.start(environment: environment))
            started.append(try await BrokerProcess.start(environment: environment))

            let addresses = (0..<6).map { "twin\($0)@example.com" }
            for (index, address) in addresses.enumerated() {
                let instance = started[index % 2]
                #expect(
                    try await instance.post("/v1/signup", ["email": .string(address), "password": "first-password"])
                        .status == 201)
            }
            // Asked for at once, half through each instance: both workers are woken and both poll.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, address) in addresses.enumerated() {
                    let instance = started[(index + 1) % 2]
                    group.addTask { try await instance.post("/v1/password/reset", ["email": .string(address)]).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 204, count: addresses.count))

            // Wait (bounded, 30 s) until every mail arrived, then stop both: a second send would have to come
            // from a job that is already marked delivered.
            for _ in 0..<120 where try smtp.messages().count < addresses.count {
                try await Task.sleep(for: .milliseconds(250))
            }
            for process in started { #expect(try await process.stop() == 0) }
            let recipients = try smtp.messages().map { CaughtMail(raw: $0).headers["to"] ?? "" }
            #expect(recipients.sorted() == addresses.sorted())

            let delivered = started.map { $0.child.stderr.components(separatedBy: "outbox job delivered").count - 1 }
            #expect(delivered.reduce(0, +) == addresses.count)
            let listing = try ProcessTests.spawn(["admin", "outbox", "--json"], environment: environment)
            #expect(try await listing.wait() == 0)
            let jobs = try #require(JSONValue.parse(Array(listing.stdout.utf8))?["jobs"]?.arrayValue)
            #expect(jobs.count == addresses.count)
            #expect(jobs.allSatisfy { $0["state"] == "delivered" && $0["attempts"] == .int(1) })
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}
