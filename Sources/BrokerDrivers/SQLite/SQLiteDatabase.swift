import BrokerCore
public import BrokerStorage
import Dispatch
import Foundation

/// The SQLite driver behind BrokerCore's ``SQLDatabase`` port.
///
/// A file database runs in WAL mode with one write connection, owned by its own serial queue (writes that
/// arrive while it is busy share one commit), and a pool of read connections. A read runs on the calling
/// thread, with a connection checked out of the pool for it alone (opened when none is idle), with no hand-off
/// to another thread and back: in WAL mode a reader never waits for the writer, so a read is CPU work like any
/// other, tens of microseconds. This is the one place a SQLite call runs on Swift's cooperative thread pool,
/// on purpose (issue 35: the hop cost two wake-ups per read). What can block a read, and for how long: a
/// page missing from the connection's cache is read from the file (the operating system's page cache, as a
/// rule); SQLite's busy handler, bounded by `busy_timeout` (5 s), runs only while another connection holds a
/// lock a reader needs, which in WAL mode is the recovery of the WAL index after a crash (at the first open)
/// and the instant the last other connection closes; the writer, the checkpointer and the WAL's truncation
/// (``eraseDeletedContent()``, which does not wait for readers) never hand a reader to the busy handler (at most
/// SQLite's own retry of a few microseconds while a checkpoint moves a read mark). A long read (`broker
/// migrate-sqlite`'s copy) holds its thread as long as it runs.
///
/// `":memory:"` uses one connection for everything, reads included, on the writer's queue (a second
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
    /// Nil for `":memory:"`, whose reads go to the writer.
    private let readers: SQLiteReaderPool?
    /// Checkpoints the WAL of a file database; nil for `":memory:"`.
    private let checkpointer: SQLiteCheckpointer?

    /// WAL frames that make a checkpoint due by default: 4,000 pages, a WAL of up to 16 MiB (SQLite's own default
    /// is 1,000). A checkpoint copies each page once however many commits rewrote it since the last one, so a
    /// longer interval copies the pages every sign-in rewrites (the ends of the append-only B-trees, the inner
    /// pages, a busy account's) fewer times, and syncs the database file a quarter as often: 2.8 % less CPU per
    /// returning sign-in without a service account, 0.9 % with one (bench/README, issue 35 section 10). The price
    /// is a longer WAL to replay after a crash (a fraction of a second for 16 MiB).
    public static let defaultCheckpointPages = 4_000

    /// Opens (creating if needed) the database at `path`; `":memory:"` opens a private in-memory database.
    ///
    /// Opening blocks the calling thread briefly (it runs on the connections' own queues); from async code
    /// prefer ``open(path:readers:checkpointPages:)``. A path in a missing directory, or a file that is not a
    /// database, throws `SQLError(.unavailable)`.
    /// - Parameters:
    ///   - readers: read connections a file database opens at once (at least 1); more are opened while more
    ///     reads run at the same time, and kept.
    ///   - checkpointPages: WAL frames (pages of 4 KiB) added since the last checkpoint that make the next one
    ///     due; it runs mostly on a connection of its own (SQLite's automatic checkpoint, which runs inside a
    ///     commit, is off). ``defaultCheckpointPages`` unless given.
    public init(path: String, readers: Int = 2, checkpointPages: Int = defaultCheckpointPages) throws {
        self.path = path
        writer = try SQLiteWorker(label: "broker.sqlite.writer") {
            try SQLiteConnection(path: path, role: .writer)
        }
        if path == ":memory:" {
            self.readers = nil
            checkpointer = nil
        } else {
            self.readers = try SQLiteReaderPool(path: path, opening: max(1, readers))
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
    public static func open(
        path: String, readers: Int = 2, checkpointPages: Int = defaultCheckpointPages
    ) async throws -> SQLiteDatabase {
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

    /// Runs `body` in a read transaction on a read connection of its own, on the calling thread (on the write
    /// connection's queue for `":memory:"`), so it sees one consistent snapshot.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        guard let readers else {
            return try await writer.run { connection in try connection.transaction(immediate: false, body) }
        }
        return try readers.read { connection in try connection.transaction(immediate: false, body) }
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

    /// Closes every connection after the work already queued on it (a read running now closes its connection
    /// when it ends); later calls throw `SQLError(.unavailable)`.
    public func close() async {
        await writer.close()
        readers?.close()
        await checkpointer?.close()
    }
}

/// The read connections of a file database: a read checks one out, runs on the calling thread and checks it
/// back in, so no two reads ever share a connection at the same time.
///
/// `@unchecked Sendable`: `idle` and `closed` are guarded by `lock`; a connection out of `idle` is used by
/// the one read that checked it out, and by nothing else until it is back.
final class SQLiteReaderPool: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    /// Connections no read is using; the pool grows to the most reads that ran at the same time.
    private var idle: [SQLiteConnection]
    private var closed = false

    /// Opens `opening` read connections of the database at `path` on the calling thread.
    init(path: String, opening: Int) throws {
        self.path = path
        idle = try (0..<opening).map { _ in try SQLiteConnection(path: path, role: .reader) }
    }

    /// Runs `body` on the calling thread with a connection no other read is using; throws
    /// `SQLError(.unavailable)` once the pool is closed.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let (taken, isClosed): (SQLiteConnection?, Bool) = lock.withLock { (idle.popLast(), closed) }
        guard !isClosed else { throw SQLError(.unavailable, "the database is closed") }
        let connection = try taken ?? SQLiteConnection(path: path, role: .reader)
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Puts `connection` back, or lets it close (when the last reference goes, outside the lock) once the pool
    /// is closed.
    private func checkIn(_ connection: SQLiteConnection) {
        lock.withLock {
            if !closed { idle.append(connection) }
        }
    }

    /// Closes the idle connections now; a connection checked out closes when its read ends.
    func close() {
        // The connections close when the array returned goes, after the lock is released.
        _ = lock.withLock {
            closed = true
            defer { idle = [] }
            return idle
        }
    }
}
