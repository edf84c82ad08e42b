import BrokerCore
import BrokerStorage
import CBrokerShims
import CSQLite

/// One `sqlite3` handle with its prepared-statement cache.
///
/// Not `Sendable`: a connection is confined to the serial queue of the ``SQLiteWorker`` that owns it, and
/// is only ever handed to code running on that queue.
final class SQLiteConnection: SQLConnection {
    /// How a connection is opened.
    enum Role {
        /// The one connection that writes; creates the file.
        case writer
        /// A connection that only reads (`PRAGMA query_only`).
        case reader
        /// The connection that copies the WAL back into the database file (``checkpoint()``), so the writer
        /// never does.
        case checkpointer
    }

    private let handle: OpaquePointer
    /// Prepared statements keyed by their SQL text, each with its result columns; reset after every use.
    private var statements: [String: Prepared] = [:]
    /// Beyond this many cached statements the cache is emptied: the broker's SQL is a fixed set of
    /// constants, so only ad-hoc SQL can reach it.
    private let statementCacheLimit = 256
    /// Transactions this connection has committed (for tests: writes committed together see one number).
    private(set) var commits = 0
    /// Savepoints set for writes committed together (for tests: a group whose bodies all return sets none).
    private(set) var savepoints = 0
    /// The writer of a file database: frames in the WAL after its last commit (0 until the first). Set by the
    /// WAL hook, which also turns SQLite's automatic checkpoint off: the ``SQLiteCheckpointer`` checkpoints.
    private(set) var walFrames = 0

    /// Opens `path` and applies the broker's pragmas. `":memory:"` opens a private in-memory database.
    init(path: String, role: Role) throws {
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if role == .writer { flags |= SQLITE_OPEN_CREATE }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let error = sqliteError(code, opened, "opening \(path)")
            // A handle is usually returned even on failure, and must still be closed.
            if let opened { sqlite3_close_v2(opened) }
            throw error
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)

        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
        try execute("PRAGMA foreign_keys = ON", [])
        // Statement journals (every write of a group commit runs in a savepoint) and sorts stay in memory:
        // as temporary files they cost an open, an unlink, writes and a close per transaction. The price: a
        // migration that builds an index on a large table sorts it in memory.
        try execute("PRAGMA temp_store = MEMORY", [])
        switch role {
        case .writer:
            if path != ":memory:" {
                let mode = try query("PRAGMA journal_mode = WAL", []).first?.text("journal_mode")
                guard mode?.lowercased() == "wal" else {
                    throw SQLError(.unavailable, "opening \(path): journal_mode is \(mode ?? "unknown"), not wal")
                }
            }
            try execute("PRAGMA synchronous = FULL", [])
            // Deleted content is overwritten with zeros (a delivered mail's code, an Apple token), not left in the
            // page's free space or a free page for anyone who reads the file; ``truncateWAL()`` does the rest.
            try execute("PRAGMA secure_delete = ON", [])
            // A returning user's sign-in reads its account inside the write transaction: the writer's cache
            // (SQLite's default is 2 MiB) holds the index pages a thousand users of a million-account database
            // touch, at the cost of a few MiB of resident memory.
            try execute("PRAGMA cache_size = -8192", [])
            if path != ":memory:" {
                // Replaces SQLite's automatic checkpoint, which would copy pages inside a commit and hold up
                // every write queued behind it.
                sqlite3_wal_hook(
                    handle,
                    { context, _, _, frames in
                        guard let context else { return SQLITE_OK }
                        Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().walFrames = Int(frames)
                        return SQLITE_OK
                    }, Unmanaged.passUnretained(self).toOpaque())
            }
        case .reader:
            try execute("PRAGMA query_only = ON", [])
        case .checkpointer:
            // A checkpoint syncs the WAL before copying it and the database file after.
            try execute("PRAGMA synchronous = FULL", [])
            // A connection opens the WAL when it first reads; until then a checkpoint copies nothing.
            _ = try query("SELECT count(*) AS n FROM sqlite_master", [])
        }
    }

    deinit {
        sqlite3_wal_hook(handle, nil, nil)
        for statement in statements.values { sqlite3_finalize(statement.handle) }
        sqlite3_close_v2(handle)
    }

    /// Copies what it can of the WAL into the database file without waiting for the writer or the readers
    /// (`SQLITE_CHECKPOINT_PASSIVE`): the WAL as long as it was when the checkpoint began, less frames a reader
    /// still needs. Returns the frames in the WAL then and how many of them are now copied. The writer starts
    /// the WAL over at its next write once all of it has been copied. Another checkpoint running (busy) is not
    /// an error.
    @discardableResult
    func checkpoint() throws -> (walFrames: Int, copied: Int) {
        var walFrames: Int32 = 0
        var copied: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &walFrames, &copied)
        // Extended result codes are on: compare the primary code.
        if code & 0xFF != SQLITE_BUSY { try sqliteCheck(code, handle, "checkpoint") }
        return (Int(walFrames), Int(copied))
    }

    /// Copies all of the WAL into the database file and truncates the WAL to nothing
    /// (`SQLITE_CHECKPOINT_TRUNCATE`) without waiting: false (nothing truncated) when a reader still uses frames
    /// of the WAL or another connection holds the lock; try again later. Run it on the writer, between writes.
    func truncateWAL() throws -> Bool {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds) }
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        if code & 0xFF == SQLITE_BUSY { return false }
        try sqliteCheck(code, handle, "truncating the WAL")
        return true
    }

    /// How long a statement waits for a lock another connection holds (`busy_timeout`).
    static let busyTimeoutMilliseconds: Int32 = 5000

    /// Runs a statement to completion and returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        let statement = try prepared(sql, binds).handle
        defer { release(statement) }
        while try sqliteCheck(sqlite3_step(statement), handle, sql) == SQLITE_ROW {}
        return Int(sqlite3_changes64(handle))
    }

    /// Runs a query and returns all its rows.
    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let prepared = try prepared(sql, binds)
        let statement = prepared.handle
        defer { release(statement) }
        let count = sqlite3_column_count(statement)
        // A schema change re-prepares a statement (`SELECT *` may then name other columns): read them again.
        let layout = count == prepared.layout.names.count ? prepared.layout : Prepared(statement).layout
        var rows: [SQLRow] = []
        while try sqliteCheck(sqlite3_step(statement), handle, sql) == SQLITE_ROW {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<count {
                values.append(try value(statement, index, sql))
            }
            rows.append(SQLRow(layout: layout, values: values))
        }
        return rows
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, rolling back when it (or the commit) throws.
    /// A writer begins with `BEGIN IMMEDIATE`, taking the write lock up front so a transaction never fails
    /// half-way on a lock upgrade.
    func transaction<T>(immediate: Bool, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN", [])
        do {
            let result = try body(self)
            try execute("COMMIT", [])
            commits += 1
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 {
                // The original error is the one worth reporting; a failed rollback leaves nothing to add.
                _ = try? execute("ROLLBACK", [])
            }
            throw error
        }
    }

    /// Runs every write of `group` in one `BEGIN IMMEDIATE` … `COMMIT` (one sync of the WAL for all). The
    /// bodies run one after the other with no savepoint first (a savepoint copies each page a write changes
    /// into the statement journal before changing it): when all of them return, that transaction commits. When
    /// one throws, none of it is kept: it is rolled back and the group runs again, each write in a savepoint of
    /// its own, so a write whose body throws is rolled back to its savepoint and the others commit. Every caller
    /// is resumed once the commit is durable, or has failed. If the shared transaction cannot be trusted (a
    /// body ended it, a savepoint cannot be set, released or rolled back to) or its commit fails, it is rolled
    /// back and every write runs again in a transaction of its own, so each answer depends on its own work and
    /// on committed data only (write bodies may rerun, as the ``SQLDatabase`` port allows).
    func commitTogether(_ group: [any SQLiteQueuedWrite]) {
        guard group.count > 1 else {
            if let write = group.first { commitAlone(write) }
            return
        }
        do {
            try execute("BEGIN IMMEDIATE", [])
        } catch {
            for write in group { write.complete(commitError: error) }
            return
        }
        var threw = false
        for write in group where !threw {
            threw = (try? write.perform(self)) == nil
            guard sqlite3_get_autocommit(handle) == 0 else {
                rollBackAndCommitAlone(group)
                return
            }
        }
        if threw {
            do {
                try execute("ROLLBACK", [])
                try execute("BEGIN IMMEDIATE", [])
            } catch {
                rollBackAndCommitAlone(group)
                return
            }
            for write in group {
                guard performInSavepoint(write) else {
                    rollBackAndCommitAlone(group)
                    return
                }
            }
        }
        do {
            try execute("COMMIT", [])
            commits += 1
        } catch {
            rollBackAndCommitAlone(group)
            return
        }
        for write in group { write.complete(commitError: nil) }
    }

    /// Runs `write` in a transaction of its own and resumes its caller.
    private func commitAlone(_ write: any SQLiteQueuedWrite) {
        do {
            try transaction(immediate: true) { try write.perform($0) }
            write.complete(commitError: nil)
        } catch {
            write.complete(commitError: error)
        }
    }

    /// The shared transaction failed: rolls it back (nothing in it is kept) and runs each write alone.
    private func rollBackAndCommitAlone(_ group: [any SQLiteQueuedWrite]) {
        if sqlite3_get_autocommit(handle) == 0 { _ = try? execute("ROLLBACK", []) }
        for write in group { commitAlone(write) }
    }

    /// Runs `write`'s body in a savepoint inside the shared transaction: kept when it returns, undone when it
    /// throws. False when the transaction can no longer be trusted with the others' changes.
    private func performInSavepoint(_ write: any SQLiteQueuedWrite) -> Bool {
        guard (try? execute("SAVEPOINT queued_write", [])) != nil else { return false }
        savepoints += 1
        let succeeded = (try? write.perform(self)) != nil
        if succeeded, (try? execute("RELEASE queued_write", [])) != nil { return true }
        // The body threw (or its release failed): undo it alone, or give up on the transaction.
        let undone =
            sqlite3_get_autocommit(handle) == 0 && (try? execute("ROLLBACK TO queued_write", [])) != nil
            && (try? execute("RELEASE queued_write", [])) != nil
        return undone && !succeeded
    }

    // MARK: - Statements

    /// A prepared statement and the names of its result columns, read once when it is prepared.
    private struct Prepared {
        let handle: OpaquePointer
        let layout: SQLColumns

        init(_ handle: OpaquePointer) {
            self.handle = handle
            let count = sqlite3_column_count(handle)
            layout = SQLColumns((0..<count).map { sqlite3_column_name(handle, $0).map { String(cString: $0) } ?? "" })
        }
    }

    /// The cached statement for `sql` (prepared on first use) with `binds` bound.
    private func prepared(_ sql: String, _ binds: [SQLValue]) throws -> Prepared {
        let statement: Prepared
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = Prepared(try prepare(sql))
            if statements.count >= statementCacheLimit {
                for old in statements.values { sqlite3_finalize(old.handle) }
                statements.removeAll(keepingCapacity: true)
            }
            statements[sql] = statement
        }
        do {
            try bind(binds, to: statement.handle, sql)
        } catch {
            release(statement.handle)
            throw error
        }
        return statement
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        var prepared: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        try sql.withCString { text in
            try sqliteCheck(
                sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, &tail), handle,
                "preparing \(sql)")
            if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespace) {
                sqlite3_finalize(prepared)
                throw SQLError(.other, "preparing \(sql): one statement at a time")
            }
        }
        guard let prepared else {
            throw SQLError(.other, "preparing \(sql): no statement")
        }
        return prepared
    }

    private func bind(_ binds: [SQLValue], to statement: OpaquePointer, _ sql: String) throws {
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == binds.count else {
            throw SQLError(.other, "\(sql): \(binds.count) values bound to \(expected) placeholders")
        }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(statement, index)
            case .integer(let number):
                code = sqlite3_bind_int64(statement, index, number)
            case .text(let text):
                // withCString never yields NULL, so the empty string stays '' and does not become NULL.
                code = text.withCString { broker_sqlite3_bind_text_transient(statement, index, $0, Int32(text.utf8.count)) }
            }
            try sqliteCheck(code, handle, "binding \(index) of \(sql)")
        }
    }

    private func value(_ statement: OpaquePointer, _ index: Int32, _ sql: String) throws -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_TEXT:
            guard let bytes = sqlite3_column_text(statement, index) else {
                throw sqliteError(sqlite3_errcode(handle), handle, "reading column \(index) of \(sql)")
            }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        default:
            throw SQLError(.other, "\(sql): column \(index) is neither NULL, INTEGER nor TEXT")
        }
    }

    /// Makes a statement reusable: resets it and drops its bindings.
    private func release(_ statement: OpaquePointer) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }
}
