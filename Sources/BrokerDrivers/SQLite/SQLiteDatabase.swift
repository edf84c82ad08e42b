public import BrokerCore
import Dispatch
import Foundation

/// The SQLite driver behind BrokerCore's ``SQLDatabase`` port.
///
/// A file database runs in WAL mode with one write connection and a few read connections, each owned by its
/// own serial queue: readers proceed concurrently with each other and with the writer, and no SQLite call
/// ever blocks Swift's cooperative thread pool. `":memory:"` uses one connection for everything (a second
/// connection would see a different, empty database). A file database's WAL is copied back into the
/// database file mostly by a connection of its own (``SQLiteCheckpointer``), never inside a commit. Every
/// connection runs with `synchronous=FULL`, `busy_timeout=5000`, `foreign_keys=ON` and `temp_store=MEMORY`, and
/// caches its prepared statements by SQL text; the writer with `secure_delete=ON`, so deleted content is zeroed.
public final class SQLiteDatabase: SQLDatabase {
    /// Always ``SQLDialect/sqlite``.
    public let dialect = SQLDialect.sqlite
    /// The path given at open.
    public let path: String

    private let writer: SQLiteWorker
    /// Empty for `":memory:"`, whose reads go to the writer.
    private let readers: [SQLiteWorker]
    /// Checkpoints the WAL of a file database; nil for `":memory:"`.
    private let checkpointer: SQLiteCheckpointer?
    /// Round-robin position among `readers`; guarded by `lock`.
    private let lock = NSLock()
    nonisolated(unsafe) private var nextReader = 0

    /// Opens (creating if needed) the database at `path`; `":memory:"` opens a private in-memory database.
    ///
    /// Opening blocks the calling thread briefly (it runs on the connections' own queues); from async code
    /// prefer ``open(path:readers:checkpointPages:)``. A path in a missing directory, or a file that is not a
    /// database, throws `SQLError(.unavailable)`.
    /// - Parameters:
    ///   - readers: read connections for a file database (at least 1).
    ///   - checkpointPages: WAL frames (pages of 4 KiB) added since the last checkpoint that make the next one
    ///     due; it runs mostly on a connection of its own (SQLite's automatic checkpoint, which runs inside a
    ///     commit, is off). 1000 is SQLite's default.
    public init(path: String, readers: Int = 2, checkpointPages: Int = 1000) throws {
        self.path = path
        writer = try SQLiteWorker(label: "broker.sqlite.writer") {
            try SQLiteConnection(path: path, role: .writer)
        }
        if path == ":memory:" {
            self.readers = []
            checkpointer = nil
        } else {
            self.readers = try (0..<max(1, readers)).map { index in
                try SQLiteWorker(label: "broker.sqlite.reader\(index)") {
                    try SQLiteConnection(path: path, role: .reader)
                }
            }
            // Weak: the writer holds the checkpointer (through its after-writes hook), not the other way round.
            let writer = self.writer
            let checkpointer = try SQLiteCheckpointer(path: path, pages: checkpointPages) { [weak writer] body in
                writer?.perform(body)
            }
            writer.runAfterWrites { connection in checkpointer.walGrew(to: connection.walFrames) }
            self.checkpointer = checkpointer
        }
    }

    /// Opens the database like ``init(path:readers:checkpointPages:)`` without blocking the caller's thread.
    public static func open(path: String, readers: Int = 2, checkpointPages: Int = 1000) async throws -> SQLiteDatabase {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try SQLiteDatabase(path: path, readers: readers, checkpointPages: checkpointPages)
                })
            }
        }
    }

    /// Copies the WAL into the database file now, whatever its length, and then empties the WAL, so content a
    /// write deleted (zeroed by `secure_delete` in the page's newest copy) is left in neither file; see
    /// ``SQLiteCheckpointer/erase()``. Returns at once. Nothing to do for `":memory:"`.
    public func eraseDeletedContent() {
        checkpointer?.erase()
    }

    /// Checkpoints finished so far (for tests).
    var checkpoints: Int {
        checkpointer?.progress.checkpoints ?? 0
    }

    /// Frames the checkpointing connection copied, beside the writer (for tests).
    var framesCheckpointedBesideTheWriter: Int {
        checkpointer?.progress.copiedBeside ?? 0
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction on the write connection; commits when it returns and
    /// rolls back when it throws. Writes that arrive while the connection is busy share one commit (one WAL
    /// sync), each still all-or-nothing in a savepoint of its own; the caller resumes once its changes are
    /// durable.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await writer.write { connection in try body(connection) }
    }

    /// Runs `body` in a read transaction on one of the read connections (the write connection for
    /// `":memory:"`), so it sees one consistent snapshot.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await reader().run { connection in
            try connection.transaction(immediate: false, body)
        }
    }

    /// Applies the migrations above the recorded version, in version order, each in its own transaction
    /// together with its row in `schema_migrations`.
    public func migrate(_ migrations: [SQLMigration]) async throws {
        let ordered = migrations.sorted { $0.version < $1.version }
        try await writer.run { connection in
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
                [])
            for migration in ordered {
                try connection.transaction(immediate: true) { connection in
                    // Checked inside the transaction: another process may have migrated meanwhile.
                    let applied = try connection.query(
                        "SELECT 1 AS applied FROM schema_migrations WHERE version = ?", [.integer(Int64(migration.version))])
                    guard applied.isEmpty else { return }
                    for statement in migration.statements {
                        try connection.execute(statement, [])
                    }
                    let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
                    try connection.execute(
                        "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                        [.integer(Int64(migration.version)), .integer(now)])
                }
            }
        }
    }

    /// Closes every connection after the work already queued on it; later calls throw
    /// `SQLError(.unavailable)`.
    public func close() async {
        await writer.close()
        for reader in readers { await reader.close() }
        await checkpointer?.close()
    }

    private func reader() -> SQLiteWorker {
        guard !readers.isEmpty else { return writer }
        return lock.withLock {
            nextReader = (nextReader + 1) % readers.count
            return readers[nextReader]
        }
    }
}
