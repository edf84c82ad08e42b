import BrokerCore
import BrokerStorage
import Foundation

/// A SQL database stand-in over a real one that counts the statements containing a text, and can fail the commit of
/// every write whose statements contain another (the body ran; its work is rolled back, as a crash before the
/// commit would leave it).
final class WatchedSQLDatabase: SQLDatabase, @unchecked Sendable {
    let inner: any SQLDatabase
    private let lock = NSLock()
    private var failing: String?
    private var counted: String?
    private var count = 0
    private var writeCount = 0

    init(_ inner: any SQLDatabase) { self.inner = inner }

    /// Fails the commits of writes with a statement containing `text` (nil: none).
    func failCommits(of text: String?) { lock.withLock { failing = text } }

    /// Counts, from now on, the statements (reads and writes) containing `text`.
    func count(_ text: String) {
        lock.withLock {
            counted = text
            count = 0
        }
    }

    /// The statements counted so far.
    var statements: Int { lock.withLock { count } }

    /// Counts, from now on, the write transactions.
    func countWrites() { lock.withLock { writeCount = 0 } }

    /// The write transactions begun since ``countWrites()``.
    var writes: Int { lock.withLock { writeCount } }

    var dialect: SQLDialect { inner.dialect }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        lock.withLock { writeCount += 1 }
        return try await inner.write { connection in
            let watched = Watched(connection, database: self)
            let result = try body(watched)
            if watched.failed { throw SQLError(.unavailable, "the commit failed") }
            return result
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await inner.read { connection in try body(Watched(connection, database: self)) }
    }

    func migrate(_ migrations: [SQLMigration]) async throws { try await inner.migrate(migrations) }
    func close() async { await inner.close() }

    /// Notes `sql`: counted when it contains the counted text; whether it fails its transaction's commit.
    fileprivate func note(_ sql: String) -> Bool {
        lock.withLock {
            if let counted, sql.contains(counted) { count += 1 }
            return failing.map(sql.contains) ?? false
        }
    }

    /// A connection whose statements the database notes.
    private final class Watched: SQLConnection {
        let connection: any SQLConnection
        let database: WatchedSQLDatabase
        var failed = false

        init(_ connection: any SQLConnection, database: WatchedSQLDatabase) {
            self.connection = connection
            self.database = database
        }

        func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
            if database.note(sql) { failed = true }
            return try connection.execute(sql, binds)
        }

        func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
            if database.note(sql) { failed = true }
            return try connection.query(sql, binds)
        }
    }
}
