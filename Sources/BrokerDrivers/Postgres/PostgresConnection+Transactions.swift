import BrokerCore
import BrokerStorage
import Foundation

/// Transactions and migrations on one ``PostgresConnection``.
extension PostgresConnection {
    /// How a transaction begins.
    enum TransactionKind {
        /// `SERIALIZABLE`: the store's read-modify-write changes (``SQLBrokerStore/update(id:options:_:)``)
        /// and check-then-insert ones (`addToSession` against a concurrent revocation) are then settled by
        /// PostgreSQL, which aborts one side of any conflict with SQLSTATE 40001; the transaction is retried.
        case write
        /// `REPEATABLE READ READ ONLY`: one snapshot for the whole body, as SQLite's readers have.
        case read
        /// `READ COMMITTED`: schema changes, run under the migration lock.
        case migration

        var begin: String {
            switch self {
            case .write: "BEGIN ISOLATION LEVEL SERIALIZABLE"
            case .read: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            case .migration: "BEGIN ISOLATION LEVEL READ COMMITTED"
            }
        }
    }

    /// Thrown when `BEGIN` failed on a connection that turned out to be broken (a server restart closed it
    /// while it sat in the pool): nothing ran, so the worker may run the transaction again on a new connection.
    /// Not when `BEGIN` got no answer in time: a server that stopped answering would only be waited on again.
    struct StaleConnection: Error {
        var underlying: SQLError
    }

    /// How many times a transaction runs before a serialization failure is reported as `.busy`. Conflicts
    /// only repeat on a hot row (one account changed by many requests at once); with the pauses below, 30
    /// attempts let dozens of concurrent changes of one row through.
    static let maximumAttempts = 30

    /// Runs `body` between `BEGIN` and `COMMIT`, rolling back when it (or the commit) throws.
    ///
    /// A transaction that lost a serialization conflict or a deadlock (SQLSTATE 40001, 40P01) is rolled back
    /// and run again from the start, after a growing random pause, up to ``maximumAttempts`` times: `body` must
    /// only touch the database (its effects elsewhere would be repeated). A body that swallowed a failed
    /// statement is not committed: PostgreSQL would silently roll back such a transaction.
    func transaction<T>(_ kind: TransactionKind, _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            clearFailures()
            do {
                try command(begin(kind))
            } catch let error as SQLError where isBroken && !timedOut && attempt == 1 {
                throw StaleConnection(underlying: error)
            }
            do {
                let result = try body(self)
                guard !isTransactionFailed else {
                    throw SQLError(.other, "a statement failed inside the transaction, which was rolled back")
                }
                try command("COMMIT")
                return result
            } catch {
                if isInTransaction && !isBroken { _ = try? command("ROLLBACK") }
                let lostConflict = failures.contains { $0 == "40001" || $0 == "40P01" }
                guard lostConflict, !isBroken, attempt < Self.maximumAttempts else { throw error }
                Self.backOff(attempt: attempt)
            }
        }
    }

    /// Sleeps this (worker) thread for a random time between 0.2 ms and 2^attempt ms (at most 32 ms):
    /// "full jitter", so transactions that conflicted do not meet again in lockstep.
    private static func backOff(attempt: Int) {
        usleep(UInt32.random(in: 200...(1_000 << min(attempt, 5))))
    }

    /// Applies the migrations not yet recorded in `schema_migrations`, in version order, each in its own
    /// transaction with its row. Each of those transactions first takes a transaction-level advisory lock
    /// keyed by the current schema (released by its `COMMIT` or `ROLLBACK`: nothing outlives a transaction,
    /// as a transaction-pooling PgBouncer requires), so instances starting together apply each version once.
    func migrate(_ migrations: [SQLMigration]) throws {
        // A migration may rewrite a large table: its calls are not bounded by the call timeout.
        let bounded = callTimeout
        callTimeout = nil
        defer { callTimeout = bounded }
        let lock = "SELECT pg_advisory_xact_lock(hashtext('social-login-broker/schema_migrations/' || "
            + "coalesce(current_schema(), '')))"
        try transaction(.migration) { connection in
            try connection.executeOnce(lock)
            try connection.executeOnce(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                    + "(version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)")
        }
        for migration in migrations.sorted(by: { $0.version < $1.version }) {
            try transaction(.migration) { connection in
                try connection.executeOnce(lock)
                let version = SQLValue.integer(Int64(migration.version))
                let applied = try connection.query("SELECT 1 AS applied FROM schema_migrations WHERE version = ?", [version])
                guard applied.isEmpty else { return }
                for statement in migration.statements {
                    try connection.executeOnce(statement)
                }
                let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
                try connection.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [version, .integer(now)])
            }
        }
    }
}
