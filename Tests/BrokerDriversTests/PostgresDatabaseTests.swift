import BrokerCore
import BrokerStorage
import Foundation
import Testing

@testable import BrokerDrivers

/// The PostgreSQL driver itself: values, the error funnel, transactions, the pool, reconnection, migrations.
/// Runs when `BROKER_TEST_POSTGRES_URL` is set (`scripts/with-postgres.sh swift test`).
@Suite("PostgresDatabase", .enabled(if: StoreBackend.postgresURL != nil, "BROKER_TEST_POSTGRES_URL is not set (scripts/with-postgres.sh swift test sets it: docs/postgres.md#testing)"))
struct PostgresDatabaseTests {
    /// A database on a fresh schema, dropped afterwards. `query` is added to the URL.
    func withDatabase(
        poolSize: Int = 2, query: String? = nil, _ body: (PostgresDatabase, PostgresTestSchema) async throws -> Void
    ) async throws {
        let schema = try await PostgresTestSchema.create()
        let database: PostgresDatabase
        do {
            database = try await PostgresDatabase.open(url: schema.url + (query.map { "&\($0)" } ?? ""), poolSize: poolSize)
        } catch {
            await schema.drop()
            throw error
        }
        do {
            try await body(database, schema)
        } catch {
            await database.close()
            await schema.drop()
            throw error
        }
        await database.close()
        await schema.drop()
    }

    static func expectSQLError(
        _ code: SQLError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        let error = await #expect(throws: SQLError.self, sourceLocation: sourceLocation) { try await body() }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test func valuesRoundTripWithTheirTypesAndColumnNames() async throws {
        try await withDatabase { database, _ in
            let rows = try await database.write { connection in
                try connection.execute(
                    "CREATE TABLE v (id INTEGER PRIMARY KEY, big BIGINT, small SMALLINT, t TEXT, flag BOOLEAN, n NUMERIC)", [])
                try connection.execute(
                    "INSERT INTO v (id, big, small, t, flag, n) VALUES (?, ?, ?, ?, ?, ?)",
                    [.integer(1), .integer(Int64.max), .integer(-7), .text("Zoë 👩‍💻 '?' \\"), .integer(1), .integer(42)])
                try connection.execute(
                    "INSERT INTO v (id, big, small, t, flag, n) VALUES (?, ?, ?, ?, ?, ?)",
                    [.integer(2), .integer(Int64.min), .null, .text(""), .null, .null])
                return try connection.query("SELECT id, big, small, t, flag = 1::boolean AS flag, n, '?' AS literal FROM v ORDER BY id", [])
            }
            #expect(rows.count == 2)
            #expect(rows.first?.columns == ["id", "big", "small", "t", "flag", "n", "literal"])
            #expect(rows.first?.values == [.integer(1), .integer(Int64.max), .integer(-7), .text("Zoë 👩‍💻 '?' \\"), .integer(1), .integer(42), .text("?")])
            #expect(rows.last?.values == [.integer(2), .integer(Int64.min), .null, .text(""), .null, .null, .text("?")])
            let count = try await database.read { try $0.query("SELECT COUNT(*) AS n FROM v WHERE t = ?", [.text("")]) }
            #expect(count.first?["n"] == .integer(1))
        }
    }

    @Test func aUniqueViolationIsReportedAndRolledBack() async throws {
        try await withDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE u (k TEXT PRIMARY KEY, e TEXT UNIQUE)", []) }
            _ = try await database.write { try $0.execute("INSERT INTO u (k, e) VALUES (?, ?)", [.text("a"), .text("x@example.com")]) }
            await Self.expectSQLError(.uniqueViolation) {
                _ = try await database.write { connection in
                    try connection.execute("INSERT INTO u (k, e) VALUES (?, ?)", [.text("b"), .text("y@example.com")])
                    try connection.execute("INSERT INTO u (k, e) VALUES (?, ?)", [.text("c"), .text("x@example.com")])
                }
            }
            let error = await #expect(throws: SQLError.self) {
                _ = try await database.write { try $0.execute("INSERT INTO u (k) VALUES (?)", [.text("a")]) }
            }
            // The primary message and the constraint only: DETAIL would repeat the key's value.
            #expect(error?.message.contains("u_pkey") == true, "\(String(describing: error))")
            #expect(error?.message.contains("(k)=(a)") == false, "\(String(describing: error))")
            let keys = try await database.read { try $0.query("SELECT k FROM u ORDER BY k", []).map { $0.text("k") } }
            #expect(keys == ["a"])
        }
    }

    @Test func otherFailuresAreOtherAndChangeNothing() async throws {
        try await withDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE o (k TEXT PRIMARY KEY, n INTEGER NOT NULL)", []) }
            await Self.expectSQLError(.other) {
                _ = try await database.write { connection in
                    try connection.execute("INSERT INTO o (k, n) VALUES (?, ?)", [.text("a"), .integer(1)])
                    try connection.execute("INSERT INTO o (k, n) VALUES (?, ?)", [.text("b"), .null])
                }
            }
            await Self.expectSQLError(.other) { _ = try await database.write { try $0.execute("SELEKT 1", []) } }
            await Self.expectSQLError(.other) {
                _ = try await database.write { try $0.execute("INSERT INTO o (k, n) VALUES (?, ?)", [.text("a")]) }
            }
            await Self.expectSQLError(.other) {
                _ = try await database.write { try $0.execute("INSERT INTO o (k, n) VALUES (?, 1)", [.text("nul\u{0}byte")]) }
            }
            // 25006 read_only_sql_transaction: what a standby answers after a failover, hence unavailable (as
            // SQLite's SQLITE_READONLY is).
            await Self.expectSQLError(.unavailable) {
                _ = try await database.read { try $0.execute("INSERT INTO o (k, n) VALUES ('in a read', 1)", []) }
            }
            await Self.expectSQLError(.other) {
                _ = try await database.write { try $0.execute("SELECT 1; SELECT 2", []) }
            }
            let count = try await database.read { try $0.query("SELECT COUNT(*) AS n FROM o", []).first?.integer("n") }
            #expect(count == 0)
        }
    }

    @Test func aBodyThatSwallowsAFailedStatementIsNotCommitted() async throws {
        try await withDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE s (k TEXT PRIMARY KEY)", []) }
            _ = try await database.write { try $0.execute("INSERT INTO s (k) VALUES ('taken')", []) }
            await Self.expectSQLError(.other) {
                try await database.write { connection in
                    try connection.execute("INSERT INTO s (k) VALUES ('new')", [])
                    _ = try? connection.execute("INSERT INTO s (k) VALUES ('taken')", [])
                }
            }
            let keys = try await database.read { try $0.query("SELECT k FROM s", []).map { $0.text("k") } }
            #expect(keys == ["taken"])
        }
    }

    /// Nothing outlives a transaction on the server connection (contract section 17): no named prepared
    /// statement, no search_path left set, no advisory lock left held (a transaction-pooling PgBouncer hands
    /// the server connection to someone else after each transaction).
    @Test func nothingIsLeftOnTheServerConnectionBetweenTransactions() async throws {
        try await withDatabase(poolSize: 1) { database, schema in
            try await database.migrate([SQLMigration(version: 1, statements: ["CREATE TABLE m1 (k TEXT)"])])
            for value in 0..<5 {
                _ = try await database.read { try $0.query("SELECT ? + 1 AS n", [.integer(Int64(value))]) }
            }
            // Outside any transaction, straight on the connection: what the next user of it would find.
            let (prepared, path, locks) = try await database.withConnectionForTests { connection in
                (
                    try connection.query("SELECT COUNT(*) AS n FROM pg_prepared_statements", []).first?.integer("n"),
                    try connection.query("SELECT current_setting('search_path') AS path", []).first?.text("path"),
                    try connection.query(
                        "SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()", []
                    ).first?.integer("n")
                )
            }
            #expect(prepared == 0)
            #expect(path?.contains(schema.name) == false, "\(path ?? "")")
            #expect(locks == 0)
        }
    }

    /// `preparedStatements=true` (a direct connection only): each statement is prepared once per connection,
    /// under a name, and then only bound and executed.
    @Test func withPreparedStatementsEachStatementIsPreparedOncePerConnection() async throws {
        try await withDatabase(poolSize: 1, query: "preparedStatements=true") { database, _ in
            for value in 0..<5 {
                let rows = try await database.read { try $0.query("SELECT ? + 1 AS n", [.integer(Int64(value))]) }
                #expect(rows.first?.integer("n") == Int64(value + 1))
            }
            let prepared = try await database.withConnectionForTests { connection in
                try connection.query(
                    "SELECT COUNT(*) AS n FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1 + 1%'", []
                ).first?.integer("n")
            }
            #expect(prepared == 1)
        }
        #expect(throws: SQLError.self) { try PostgresSettings(url: "postgres://u@127.0.0.1/db?preparedStatements=yes") }
    }

    @Test func theURLsParametersWinOverTheDriversDefaults() async throws {
        try await withDatabase(query: "application_name=conformance&connect_timeout=3") { database, _ in
            let settings = try await database.read { connection in
                try connection.query(
                    "SELECT current_setting('application_name') AS app, current_schema() AS schema", [])
            }
            #expect(settings.first?.text("app") == "conformance")
            #expect(settings.first?.text("schema")?.hasPrefix("t_") == true)
        }
    }

    @Test func readsSeeOneSnapshotAndWritesAreSerializable() async throws {
        try await withDatabase { database, _ in
            let levels = try await (
                database.read { try $0.query("SHOW transaction_isolation", []).first?.text("transaction_isolation") },
                database.write { try $0.query("SHOW transaction_isolation", []).first?.text("transaction_isolation") }
            )
            #expect(levels.0 == "repeatable read")
            #expect(levels.1 == "serializable")
        }
    }

    @Test func tasksWaitForAFreeConnectionWithoutBlockingThreads() async throws {
        try await withDatabase(poolSize: 2) { database, _ in
            let started = ContinuousClock.now
            let pids = try await withThrowingTaskGroup(of: Int64?.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        try await database.read { connection in
                            _ = try connection.query("SELECT pg_sleep(0.2)", [])
                            return try connection.query("SELECT pg_backend_pid() AS pid", []).first?.integer("pid")
                        }
                    }
                }
                var pids: Set<Int64?> = []
                for try await pid in group { pids.insert(pid) }
                return pids
            }
            let elapsed = started.duration(to: .now)
            #expect(pids.count == 2)  // two connections, each used three times
            #expect(elapsed >= .milliseconds(600))  // three rounds of two: the third task waited
            #expect(elapsed < .seconds(30))  // generous: a shared, busy CI machine
        }
    }

    /// Ends the server process of another connection, as an administrator (or a failover) would.
    static func terminateBackend(_ pid: Int64, through url: String) async throws -> Int64? {
        let binds: [SQLValue] = [.integer(pid)]
        return try await PostgresTestSchema.administer(url) { connection in
            try connection.query("SELECT pg_terminate_backend(?) AS done", binds).first?.integer("done")
        }
    }

    @Test func aTerminatedConnectionIsReplacedWithoutFailingTheNextCall() async throws {
        try await withDatabase(poolSize: 1) { database, schema in
            let pid = try await database.read { try $0.query("SELECT pg_backend_pid() AS pid", []).first?.integer("pid") }
            let before = try #require(pid)
            #expect(try await Self.terminateBackend(before, through: schema.baseURL) == 1)
            try await Task.sleep(for: .milliseconds(100))
            let after = try await database.read { try $0.query("SELECT pg_backend_pid() AS pid", []).first?.integer("pid") }
            #expect(after != nil)
            #expect(after != before)
        }
    }

    /// A call that gets no answer within `callTimeout` fails `.unavailable` and its connection is dropped from
    /// the pool (contract section 17): the next call runs on a new server connection.
    @Test func aCallWithoutAnAnswerInTimeIsUnavailableAndItsConnectionIsDropped() async throws {
        try await withDatabase(poolSize: 1, query: "callTimeout=1") { database, _ in
            let pid = try await database.read { try $0.query("SELECT pg_backend_pid() AS pid", []).first?.integer("pid") }
            let before = try #require(pid)
            let error = await #expect(throws: SQLError.self) {
                _ = try await database.write { try $0.query("SELECT pg_sleep(5)", []) }
            }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains("no answer from the database within 1 s") == true, "\(String(describing: error))")
            let after = try await database.read { try $0.query("SELECT pg_backend_pid() AS pid", []).first?.integer("pid") }
            #expect(after != nil)
            #expect(after != before)
        }
    }

    @Test func anUnreachableServerIsUnavailableAndTheMessageHidesThePassword() async throws {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        let url = "postgres://broker:pw-very-secret@127.0.0.1:1/broker"
        let error = await #expect(throws: SQLError.self) { _ = try await PostgresDatabase.open(url: url) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("postgres://broker@127.0.0.1:1/broker") == true, "\(String(describing: error))")
        #expect(error?.message.contains("pw-very-secret") == false)

        let database = try PostgresDatabase(url: url, poolSize: 1)
        await Self.expectSQLError(.unavailable) { _ = try await database.read { try $0.query("SELECT 1", []) } }
        await database.close()
    }

    @Test func aClosedDatabaseRefusesWork() async throws {
        let schema = try await PostgresTestSchema.create()
        let database = try await PostgresDatabase.open(url: schema.url, poolSize: 1)
        await database.close()
        await Self.expectSQLError(.unavailable) { _ = try await database.read { try $0.query("SELECT 1", []) } }
        await schema.drop()
    }

    @Test func concurrentMigrationsApplyEachVersionOnce() async throws {
        try await withDatabase { _, schema in
            let migrations = [
                SQLMigration(version: 1, statements: ["CREATE TABLE m1 (k TEXT PRIMARY KEY)", "INSERT INTO m1 (k) VALUES ('one')"]),
                SQLMigration(version: 2, statements: ["ALTER TABLE m1 ADD COLUMN n BIGINT", "CREATE INDEX m1_n ON m1 (n)"]),
            ]
            // Four "instances" starting together on one schema.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let database = try PostgresDatabase(url: schema.url, poolSize: 1)
                        do {
                            try await database.migrate(migrations.shuffled())
                        } catch {
                            await database.close()
                            throw error
                        }
                        await database.close()
                    }
                }
                try await group.waitForAll()
            }
            let database = try PostgresDatabase(url: schema.url, poolSize: 1)
            let (versions, rows) = try await database.read { connection in
                (
                    try connection.query("SELECT version FROM schema_migrations ORDER BY version", []).compactMap { $0.integer("version") },
                    try connection.query("SELECT k, n FROM m1", []).map(\.values)
                )
            }
            #expect(versions == [1, 2])
            #expect(rows == [[.text("one"), .null]])

            // A later version is applied on its own; failing ones leave nothing behind.
            let broken = SQLMigration(version: 3, statements: ["CREATE TABLE m3 (k TEXT)", "CREATE TABLE m3 (k TEXT)"])
            await Self.expectSQLError(.other) { try await database.migrate(migrations + [broken]) }
            let after = try await database.read { connection in
                (
                    try connection.query("SELECT version FROM schema_migrations ORDER BY version", []).compactMap { $0.integer("version") },
                    try connection.query("SELECT to_regclass('m3') IS NULL AS missing", []).first?.integer("missing")
                )
            }
            #expect(after.0 == [1, 2])
            #expect(after.1 == 1)
            await database.close()
        }
    }
}
