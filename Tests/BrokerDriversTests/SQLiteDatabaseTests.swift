import BrokerCore
import BrokerStorage
import Foundation
import Testing

@testable import BrokerDrivers

/// The SQLite driver itself: pragmas, transactions, error funnel, values, migrations, durability.
@Suite("SQLiteDatabase")
struct SQLiteDatabaseTests {
    /// A file database in a fresh temporary directory, removed afterwards.
    func withFileDatabase(
        checkpointPages: Int = SQLiteDatabase.defaultCheckpointPages,
        _ body: (SQLiteDatabase, String) async throws -> Void
    ) async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("test.sqlite").path
        let database = try await SQLiteDatabase.open(path: path, checkpointPages: checkpointPages)
        do {
            try await body(database, path)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    static func expectSQLError(
        _ code: SQLError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        let error = await #expect(throws: SQLError.self, sourceLocation: sourceLocation) { try await body() }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test func fileDatabaseRunsWithTheBrokersPragmas() async throws {
        try await withFileDatabase { database, _ in
            let pragmas = try await database.write { connection in
                [
                    try connection.query("PRAGMA journal_mode", []).first?.text("journal_mode"),
                    try connection.query("PRAGMA synchronous", []).first?.integer("synchronous").map(String.init),
                    try connection.query("PRAGMA busy_timeout", []).first?.integer("timeout").map(String.init),
                    try connection.query("PRAGMA foreign_keys", []).first?.integer("foreign_keys").map(String.init),
                    try connection.query("PRAGMA cache_size", []).first?.integer("cache_size").map(String.init),
                    try connection.query("PRAGMA temp_store", []).first?.integer("temp_store").map(String.init),
                ]
            }
            #expect(pragmas == ["wal", "2", "5000", "1", "-8192", "2"])
            let readerForeignKeys = try await database.read { connection in
                try connection.query("PRAGMA foreign_keys", []).first?.integer("foreign_keys")
            }
            #expect(readerForeignKeys == 1)
        }
    }

    /// Writes about `pages` pages of 4 KiB, one commit per page.
    func writePages(_ pages: Int, to database: SQLiteDatabase) async throws {
        _ = try await database.write { try $0.execute("CREATE TABLE IF NOT EXISTS filler (k INTEGER PRIMARY KEY, v TEXT)", []) }
        let text = String(repeating: "x", count: 3_900)
        for _ in 0..<pages {
            _ = try await database.write { try $0.execute("INSERT INTO filler (v) VALUES (?)", [.text(text)]) }
        }
    }

    /// The size of the database file itself, which only a checkpoint makes grow (commits go to the WAL).
    func mainFileBytes(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test func commitsNeverCheckpointTheWALThemselves() async throws {
        // Past SQLite's automatic threshold (1000 pages) with the checkpointer set never to run: the pages
        // stay in the WAL, so no commit copied them into the database file.
        try await withFileDatabase(checkpointPages: .max) { database, path in
            try await writePages(1_200, to: database)
            #expect(database.checkpoints == 0)
            let bytes = try mainFileBytes(path)
            #expect(bytes < 64 * 4096, "\(bytes) bytes")
            let count = try await database.read { try $0.query("SELECT count(*) AS n FROM filler", []).first?.integer("n") }
            #expect(count == 1_200)
        }
    }

    @Test func aDatabaseOpenedWithTheDefaultsCheckpointsOnlyPastFourThousandPages() async throws {
        // SQLite's own threshold is 1,000 pages; the broker's default waits for 4,000 (a longer WAL, fewer copies
        // of the pages every commit rewrites). Opened as `broker serve` opens it, 1,000 commits of a page each
        // (a commit adds its page and the table's inner pages to the WAL: the old default ran 3 checkpoints in
        // 1,200 of them) leave the database file as it was.
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("test.sqlite").path
        let database = try await SQLiteDatabase.open(path: path)
        try await writePages(1_000, to: database)
        let checkpoints = database.checkpoints
        let bytes = try mainFileBytes(path)
        await database.close()
        #expect(checkpoints == 0)
        #expect(bytes < 64 * 4096, "\(bytes) bytes")
    }

    @Test func theCheckpointerCopiesTheWALIntoTheDatabaseFileOnItsOwnConnection() async throws {
        try await withFileDatabase(checkpointPages: 50) { database, path in
            try await writePages(300, to: database)
            // Checkpoints run in the background: wait (without a timed assertion) until one has finished.
            for _ in 0..<1_000 where database.checkpoints == 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(database.checkpoints >= 1)
            // The checkpointing connection did copy pages: the writer's own step is not all there is.
            #expect(database.framesCheckpointedBesideTheWriter > 0)
            // One more commit past the threshold after a finished checkpoint copies the rest.
            let before = database.checkpoints
            try await writePages(60, to: database)
            for _ in 0..<1_000 where database.checkpoints == before {
                try await Task.sleep(for: .milliseconds(10))
            }
            let bytes = try mainFileBytes(path)
            #expect(bytes >= 300 * 4096, "\(bytes) bytes")
            let count = try await database.read { try $0.query("SELECT count(*) AS n FROM filler", []).first?.integer("n") }
            #expect(count == 360)
        }
    }

    @Test func theWALIsStartedOverWhileCommitsKeepComing() async throws {
        // 1,500 commits one after another, each adding a page, with checkpoints due every 50. What proves the WAL
        // is started over while commits keep coming is SQLite's own count of it: the checkpoint sequence number in
        // the WAL header (bytes 12-15, big-endian), which goes up by one each time a writer starts the WAL over
        // from its first frame. A checkpoint that only ran beside the commits would chase them and never let the
        // WAL start over (the number stays 0, the WAL holds all 1,500 pages). Not a bound on the WAL's bytes: how
        // many commits land while a checkpoint runs depends on the machine's load, not on the code.
        try await withFileDatabase(checkpointPages: 50) { database, path in
            try await writePages(1_500, to: database)
            let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
            #expect(wal.count > 32)
            let restarts = wal.prefix(16).suffix(4).reduce(0) { $0 << 8 | Int($1) }
            #expect(restarts >= 3, "the WAL started over \(restarts) times in \(database.checkpoints) checkpoints")
            #expect(database.checkpoints >= 3)
            // Started over, it never held most of the commits (it would hold every one of them otherwise).
            #expect(wal.count < 750 * 4_120, "\(wal.count) bytes of WAL")
        }
    }

    @Test func readConnectionsSeeCommittedWritesAndCannotWrite() async throws {
        try await withFileDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE t (k TEXT PRIMARY KEY)", []) }
            for index in 0..<4 {
                _ = try await database.write { try $0.execute("INSERT INTO t (k) VALUES (?)", [.text("k\(index)")]) }
                // Round-robin over the readers: each must see the write that just committed.
                let count = try await database.read { try $0.query("SELECT count(*) AS n FROM t", []).first?.integer("n") }
                #expect(count == Int64(index + 1))
            }
            let error = await #expect(throws: SQLError.self) {
                try await database.read { try $0.execute("INSERT INTO t (k) VALUES ('sneaky')", []) }
            }
            #expect(error != nil)
            let count = try await database.read { try $0.query("SELECT count(*) AS n FROM t", []).first?.integer("n") }
            #expect(count == 4)
        }
    }

    @Test func aReadDoesNotWaitForAWriteInProgressAndSeesTheLastCommit() async throws {
        try await withFileDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE t (k TEXT PRIMARY KEY)", []) }
            _ = try await database.write { try $0.execute("INSERT INTO t (k) VALUES ('before')", []) }
            let inserted = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let writing = Task {
                try await database.write { connection in
                    try connection.execute("INSERT INTO t (k) VALUES ('during')", [])
                    inserted.signal()
                    release.wait()  // on the writer's own queue, holding its transaction open
                }
            }
            // Polled, not waited on: the cooperative pool's thread stays free for the write's task.
            while inserted.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(5)) }
            let keys: @Sendable (any SQLConnection) throws -> [String] = {
                try $0.query("SELECT k FROM t ORDER BY k", []).compactMap { $0.text("k") }
            }
            let seen = try await database.read(keys)
            release.signal()
            try await writing.value
            #expect(seen == ["before"])
            let after = try await database.read(keys)
            #expect(after == ["before", "during"])
        }
    }

    @Test func readsAtTheSameTimeNeverShareAConnection() async throws {
        final class InUse: @unchecked Sendable {
            let lock = NSLock()
            var connections: Set<ObjectIdentifier> = []
            var shared = 0
        }
        try await withFileDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)", []) }
            _ = try await database.write { try $0.execute("INSERT INTO t (k) VALUES (1), (2), (3)", []) }
            let inUse = InUse()
            let sums = try await withThrowingTaskGroup(of: Int64?.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await database.read { connection in
                            let id = ObjectIdentifier(connection as AnyObject)
                            inUse.lock.withLock { if !inUse.connections.insert(id).inserted { inUse.shared += 1 } }
                            defer { _ = inUse.lock.withLock { inUse.connections.remove(id) } }
                            Thread.sleep(forTimeInterval: 0.002)
                            return try connection.query("SELECT sum(k) AS s FROM t", []).first?.integer("s")
                        }
                    }
                }
                return try await group.reduce(into: [Int64?]()) { $0.append($1) }
            }
            #expect(sums == Array(repeating: 6, count: 16))
            #expect(inUse.shared == 0)
        }
    }

    @Test func aReadRunningWhenTheDatabaseClosesEndsAndLaterReadsAreUnavailable() async throws {
        try await withFileDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE t (k TEXT PRIMARY KEY)", []) }
            _ = try await database.write { try $0.execute("INSERT INTO t (k) VALUES ('kept')", []) }
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let reading = Task {
                try await database.read { connection -> [String] in
                    started.signal()
                    release.wait()
                    return try connection.query("SELECT k FROM t", []).compactMap { $0.text("k") }
                }
            }
            while started.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(5)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { release.signal() }
            await database.close()
            #expect(try await reading.value == ["kept"])
            await Self.expectSQLError(.unavailable) {
                _ = try await database.read { try $0.query("SELECT 1 AS one", []) }
            }
        }
    }

    @Test(arguments: [":memory:", "file"])
    func constraintViolationsAreClassified(location: String) async throws {
        let run: (SQLiteDatabase) async throws -> Void = { database in
            try await database.write { connection in
                try connection.execute("CREATE TABLE parent (id TEXT PRIMARY KEY, u TEXT UNIQUE, n TEXT NOT NULL)", [])
                try connection.execute("CREATE TABLE child (id TEXT PRIMARY KEY, parent TEXT REFERENCES parent (id))", [])
                try connection.execute("INSERT INTO parent (id, u, n) VALUES ('p', 'u', 'n')", [])
            }
            await Self.expectSQLError(.uniqueViolation) {
                _ = try await database.write { try $0.execute("INSERT INTO parent (id, u, n) VALUES ('p', 'other', 'n')", []) }
            }
            await Self.expectSQLError(.uniqueViolation) {
                _ = try await database.write { try $0.execute("INSERT INTO parent (id, u, n) VALUES ('q', 'u', 'n')", []) }
            }
            await Self.expectSQLError(.other) {
                _ = try await database.write { try $0.execute("INSERT INTO parent (id, u, n) VALUES ('r', 'r', NULL)", []) }
            }
            // Foreign keys are enforced (foreign_keys=ON), and that is not a uniqueness violation.
            await Self.expectSQLError(.other) {
                _ = try await database.write { try $0.execute("INSERT INTO child (id, parent) VALUES ('c', 'missing')", []) }
            }
            let rows = try await database.read { try $0.query("SELECT id FROM parent UNION ALL SELECT id FROM child", []) }
            #expect(rows.map { $0.text("id") } == ["p"])
        }
        if location == ":memory:" {
            let database = try SQLiteDatabase(path: ":memory:")
            try await run(database)
            await database.close()
        } else {
            try await withFileDatabase { database, _ in try await run(database) }
        }
    }

    @Test func writeRollsBackWhenTheBodyThrows() async throws {
        struct Boom: Error {}
        try await withFileDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE t (k TEXT PRIMARY KEY)", []) }
            await #expect(throws: Boom.self) {
                try await database.write { connection in
                    try connection.execute("INSERT INTO t (k) VALUES ('a')", [])
                    throw Boom()
                }
            }
            // A failed statement inside the body rolls back the statements before it too.
            await Self.expectSQLError(.uniqueViolation) {
                try await database.write { connection in
                    try connection.execute("INSERT INTO t (k) VALUES ('b')", [])
                    try connection.execute("INSERT INTO t (k) VALUES ('b')", [])
                }
            }
            #expect(try await database.read { try $0.query("SELECT k FROM t", []) }.isEmpty)
            // The connection is usable afterwards.
            _ = try await database.write { try $0.execute("INSERT INTO t (k) VALUES ('c')", []) }
            #expect(try await database.read { try $0.query("SELECT k FROM t", []) }.map { $0.text("k") } == ["c"])
        }
    }

    @Test func writesQueuedBehindABusyWriterCommitTogetherEachAllOrNothing() async throws {
        struct Boom: Error {}
        try await withFileDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE t (k TEXT PRIMARY KEY)", []) }
            // The writer is busy for a moment, so the writes sent meanwhile queue up behind it.
            let busy = Task {
                try await database.write { connection in
                    Thread.sleep(forTimeInterval: 0.3)  // on the writer's own queue, not the cooperative pool
                    try connection.execute("INSERT INTO t (k) VALUES ('first')", [])
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            let outcomes = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        do {
                            let commits = try await database.write { connection -> Int in
                                try connection.execute("INSERT INTO t (k) VALUES (?)", [.text("k\(index)")])
                                // Every third fails after writing; every seventh breaks a constraint half-way.
                                if index % 3 == 1 { throw Boom() }
                                if index % 7 == 6 { try connection.execute("INSERT INTO t (k) VALUES ('first')", []) }
                                return (connection as? SQLiteConnection)?.commits ?? -1
                            }
                            return (index, .success(commits))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [Int: Result<Int, any Error>]()) { $0[$1.0] = $1.1 }
            }
            _ = try await busy.value

            let kept = (0..<20).filter { $0 % 3 != 1 && $0 % 7 != 6 }
            for index in 0..<20 {
                switch outcomes[index] {
                case .success?: #expect(kept.contains(index), "write \(index) should have failed")
                case .failure(let error)?:
                    #expect(!kept.contains(index), "write \(index) failed: \(error)")
                    #expect(index % 3 == 1 ? error is Boom : (error as? SQLError)?.code == .uniqueViolation)
                case nil: Issue.record("write \(index) never answered")
                }
            }
            let rows = try await database.read { try $0.query("SELECT k FROM t ORDER BY k", []) }.compactMap { $0.text("k") }
            #expect(rows == (["first"] + kept.map { "k\($0)" }).sorted())
            // They shared commits: fewer commits than writes.
            let commitNumbers = Set(outcomes.values.compactMap { try? $0.get() })
            #expect(commitNumbers.count < kept.count, "\(commitNumbers)")
        }
    }

    @Test func writesQueuedTogetherWhoseBodiesAllReturnShareACommitWithNoSavepoint() async throws {
        try await withFileDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE t (k TEXT PRIMARY KEY)", []) }
            let busy = Task {
                try await database.write { _ in Thread.sleep(forTimeInterval: 0.3) }  // the writes below queue up
            }
            try await Task.sleep(for: .milliseconds(50))
            // Each body sees the commit it is part of and the savepoints set so far.
            let seen = try await withThrowingTaskGroup(of: [Int].self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try await database.write { connection -> [Int] in
                            try connection.execute("INSERT INTO t (k) VALUES (?)", [.text("k\(index)")])
                            let sqlite = connection as? SQLiteConnection
                            return [sqlite?.commits ?? -1, sqlite?.savepoints ?? -1]
                        }
                    }
                }
                return try await group.reduce(into: [[Int]]()) { $0.append($1) }
            }
            _ = try await busy.value
            #expect(Set(seen.map { $0[0] }).count < 10, "\(seen)")
            #expect(seen.allSatisfy { $0[1] == 0 }, "\(seen)")
            let count = try await database.read { try $0.query("SELECT count(*) AS n FROM t", []).first?.integer("n") }
            #expect(count == 10)
        }
    }

    @Test(arguments: [true, false])
    func aWriteThatEndsTheSharedTransactionFailsAloneAndTheOthersAreRunAgain(thenThrows: Bool) async throws {
        struct Boom: Error {}
        try await withFileDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE t (k TEXT PRIMARY KEY)", []) }
            let busy = Task {
                try await database.write { _ in Thread.sleep(forTimeInterval: 0.3) }  // the writer's queue, not the pool
            }
            try await Task.sleep(for: .milliseconds(50))
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<10 {
                    group.addTask {
                        do {
                            try await database.write { connection in
                                try connection.execute("INSERT INTO t (k) VALUES (?)", [.text("k\(index)")])
                                // A misbehaving body ends whatever transaction it runs in, and throws or not.
                                if index == 5 {
                                    try connection.execute("ROLLBACK", [])
                                    if thenThrows { throw Boom() }
                                }
                            }
                            return (index, true)
                        } catch {
                            return (index, false)
                        }
                    }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            _ = try await busy.value
            #expect(outcomes == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, $0 != 5) }))
            let rows = try await database.read { try $0.query("SELECT k FROM t ORDER BY k", []) }.compactMap { $0.text("k") }
            #expect(rows == (0..<10).filter { $0 != 5 }.map { "k\($0)" })
            // The connection is usable afterwards.
            _ = try await database.write { try $0.execute("INSERT INTO t (k) VALUES ('after')", []) }
        }
    }

    @Test func valuesRoundTripThroughCachedStatements() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        _ = try await database.write { try $0.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, t TEXT, i BIGINT)", []) }
        let values: [(SQLValue, SQLValue)] = [
            (.null, .null), (.text(""), .integer(0)), (.text("ünï 👩‍💻"), .integer(Int64.max)),
            (.text("nul\u{0}inside"), .integer(Int64.min)), (.text("'; DROP TABLE v; --"), .integer(-1)),
        ]
        for (index, (text, integer)) in values.enumerated() {
            _ = try await database.write {
                try $0.execute("INSERT INTO v (id, t, i) VALUES (?, ?, ?)", [.integer(Int64(index)), text, integer])
            }
        }
        for (index, (text, integer)) in values.enumerated() {
            let row = try await database.read { try $0.query("SELECT t, i FROM v WHERE id = ?", [.integer(Int64(index))]) }
            #expect(row.first?.values == [text, integer], "row \(index)")
        }
        // A wrong number of values is refused, and does not poison the cached statement.
        await Self.expectSQLError(.other) {
            _ = try await database.read { try $0.query("SELECT t, i FROM v WHERE id = ?", []) }
        }
        let again = try await database.read { try $0.query("SELECT t, i FROM v WHERE id = ?", [.integer(2)]) }
        #expect(again.first?.values == [values[2].0, values[2].1])
        // Several statements in one string are refused rather than silently truncated.
        await Self.expectSQLError(.other) {
            _ = try await database.write { try $0.execute("DELETE FROM v; DELETE FROM v WHERE id = 1", []) }
        }
        #expect(try await database.read { try $0.query("SELECT id FROM v", []) }.count == values.count)
        await database.close()
    }

    @Test func migrationsApplyOnceInVersionOrder() async throws {
        try await withFileDatabase { database, _ in
            let v1 = SQLMigration(version: 1, statements: ["CREATE TABLE a (id TEXT PRIMARY KEY)"])
            let v2 = SQLMigration(version: 2, statements: ["ALTER TABLE a ADD COLUMN note TEXT", "CREATE INDEX a_note ON a (note)"])
            try await database.migrate([v2, v1])
            // Re-running would fail (no IF NOT EXISTS) if anything were applied twice.
            try await database.migrate([v1, v2])

            let broken = SQLMigration(version: 3, statements: ["CREATE TABLE b (id TEXT)", "THIS IS NOT SQL"])
            await Self.expectSQLError(.other) { try await database.migrate([v1, v2, broken]) }

            let versions = try await database.read { connection in
                try connection.query("SELECT version FROM schema_migrations ORDER BY version", []).compactMap { $0.integer("version") }
            }
            #expect(versions == [1, 2])
            let tables = try await database.read { connection in
                try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'b')", [])
                    .compactMap { $0.text("name") }
            }
            #expect(tables == ["a"])

            let fixed = SQLMigration(version: 3, statements: ["CREATE TABLE b (id TEXT)"])
            try await database.migrate([v1, v2, fixed])
            _ = try await database.write { try $0.execute("INSERT INTO a (id, note) VALUES ('x', 'y')", []) }
            _ = try await database.write { try $0.execute("INSERT INTO b (id) VALUES ('x')", []) }
        }
    }

    @Test func openingInAMissingDirectoryIsUnavailable() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("no/such/dir", isDirectory: true)
        let path = missing.appendingPathComponent("broker.sqlite").path

        await Self.expectSQLError(.unavailable) { _ = try SQLiteDatabase(path: path) }
        await Self.expectSQLError(.unavailable) { _ = try await SQLiteDatabase.open(path: path) }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func openingAFileThatIsNotADatabaseIsUnavailable() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))

        await Self.expectSQLError(.unavailable) { _ = try await SQLiteDatabase.open(path: path) }
    }

    @Test func aClosedDatabaseIsUnavailable() async throws {
        try await withFileDatabase { database, _ in
            await database.close()
            await Self.expectSQLError(.unavailable) { _ = try await database.write { try $0.execute("SELECT 1", []) } }
            await Self.expectSQLError(.unavailable) { _ = try await database.read { try $0.query("SELECT 1 AS one", []) } }
        }
    }

    @Test(arguments: [
        (Int32(5), SQLError.Code.busy),  // SQLITE_BUSY
        (517, .busy),  // SQLITE_BUSY_SNAPSHOT
        (6, .busy),  // SQLITE_LOCKED
        (14, .unavailable),  // SQLITE_CANTOPEN
        (10, .unavailable),  // SQLITE_IOERR
        (13, .unavailable),  // SQLITE_FULL
        (26, .unavailable),  // SQLITE_NOTADB
        (2067, .uniqueViolation),  // SQLITE_CONSTRAINT_UNIQUE
        (1555, .uniqueViolation),  // SQLITE_CONSTRAINT_PRIMARYKEY
        (787, .other),  // SQLITE_CONSTRAINT_FOREIGNKEY
        (1299, .other),  // SQLITE_CONSTRAINT_NOTNULL
        (1, .other),  // SQLITE_ERROR
    ])
    func resultCodesAreFunnelledToStableErrorCodes(code: Int32, expected: SQLError.Code) async throws {
        #expect(sqliteErrorCode(code) == expected)
        let error = #expect(throws: SQLError.self) { try sqliteCheck(code, nil, "test") }
        #expect(error?.code == expected)
        #expect(try sqliteCheck(0, nil, "ok") == 0)  // SQLITE_OK passes through
    }
}
