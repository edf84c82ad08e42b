import BrokerCore
public import BrokerStorage
import Foundation

/// The PostgreSQL driver behind BrokerCore's ``SQLDatabase`` port, over libpq.
///
/// A pool of connections, each owned by its own serial queue, so no libpq call ever blocks Swift's cooperative
/// thread pool; a task finding every connection busy waits for one without holding a thread. Statements go out
/// unnamed (`PQexecParams`), and the URL's `searchPath` is set per transaction, so nothing lives in a server
/// session across transactions and a transaction-pooling PgBouncer may sit in between; the port's `?`
/// placeholders become `$1 … $n`.
///
/// Writes run `SERIALIZABLE` and are retried when PostgreSQL aborts them for a conflict (see
/// ``write(_:)``), reads run on one `REPEATABLE READ` snapshot. Connections open lazily and are replaced
/// when they break, so while the server is down calls fail with `SQLError(.unavailable)` (which the HTTP edge
/// answers with 503 `STORAGE_UNAVAILABLE`) and once it is back the next call reconnects.
///
/// The URL is libpq's (`postgres://user:password@host:port/database?sslmode=require`, several `host:port`
/// with `target_session_attrs=read-write`, or a Unix socket directory as `host=`), plus the broker's own
/// `poolSize` and `searchPath` parameters. The password never
/// appears in a message or in ``redactedURL``.
public final class PostgresDatabase: SQLDatabase {
    /// The pool size when neither the URL nor the caller names one.
    public static let defaultPoolSize = 4

    /// Always ``SQLDialect/postgres``.
    public let dialect = SQLDialect.postgres
    /// How many connections the pool holds at most.
    public let poolSize: Int
    /// The URL without its password and query, for logs.
    public let redactedURL: String

    private let pool: PostgresPool

    /// Prepares a pool for `url` without connecting: the first call connects (so does ``open(url:poolSize:)``).
    ///
    /// - Parameter poolSize: connections, when the URL has no `poolSize` parameter; ``defaultPoolSize`` when
    ///   neither gives one.
    /// - Throws: `SQLError(.other)` for a URL libpq cannot parse or a pool size outside 1…100.
    public init(url: String, poolSize: Int? = nil) throws {
        let settings = try PostgresSettings(url: url)
        let size = settings.poolSize ?? poolSize ?? Self.defaultPoolSize
        guard (1...PostgresSettings.maximumPoolSize).contains(size) else {
            throw SQLError(.other, "database pool size must be from 1 to \(PostgresSettings.maximumPoolSize), not \(size)")
        }
        self.poolSize = size
        redactedURL = settings.redacted
        pool = PostgresPool(
            workers: (0..<size).map { PostgresWorker(label: "broker.postgres.\($0)", settings: settings) },
            waitTimeout: settings.callTimeout)
    }

    /// `url` as logs may show it: `scheme://user@hosts/database`, without password or parameters; nil when
    /// it cannot be parsed.
    public static func redacted(url: String) -> String? {
        try? PostgresSettings(url: url).redacted
    }

    /// Checks `url` as ``init(url:poolSize:)`` does, without preparing a pool: the broker's parameters, the names
    /// of libpq's, the hosts and ports.
    /// - Throws: `SQLError(.other)` naming the problem, never the password.
    public static func check(url: String) throws {
        _ = try PostgresSettings(url: url)
    }

    /// Like ``init(url:poolSize:)``, then connects once, so a wrong URL, a refused login or an unreachable
    /// server fail here (`SQLError(.unavailable)`) rather than at the first request.
    public static func open(url: String, poolSize: Int? = nil) async throws -> PostgresDatabase {
        let database = try PostgresDatabase(url: url, poolSize: poolSize)
        do {
            try await database.pool.withWorker { worker in
                try await worker.withConnection { _ in }
            }
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    /// Runs `body` in a `SERIALIZABLE` transaction on a pooled connection; commits when it returns and rolls
    /// back when it throws. When PostgreSQL aborts the transaction for a conflict with a concurrent one
    /// (SQLSTATE 40001 or 40P01), it is rolled back and `body` runs again on fresh state, up to 30 times with
    /// growing random pauses, then fails `.busy`: `body` must have no effect outside the connection.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await pool.withWorker { worker in
            try await worker.transaction(.write, body)
        }
    }

    /// Runs `body` in a read-only `REPEATABLE READ` transaction on a pooled connection: one snapshot throughout.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await pool.withWorker { worker in
            try await worker.transaction(.read, body)
        }
    }

    /// Applies the migrations above the recorded version, in version order, each in its own transaction
    /// together with its row in `schema_migrations`, holding a PostgreSQL advisory lock (per schema) so that
    /// instances starting together migrate one at a time.
    public func migrate(_ migrations: [SQLMigration]) async throws {
        try await pool.withWorker { worker in
            try await worker.withConnection { connection in try connection.migrate(migrations) }
        }
    }

    /// Runs `body` on a pooled connection outside any transaction: for tests that look at what a transaction
    /// left behind on the server connection.
    func withConnectionForTests<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await pool.withWorker { worker in try await worker.withConnection(body) }
    }

    /// Closes every connection after the work already queued on it; later calls throw `SQLError(.unavailable)`.
    public func close() async {
        pool.close()
        for worker in pool.workers { await worker.close() }
    }
}
