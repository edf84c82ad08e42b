import BrokerCore
import BrokerStorage
import CBrokerShims
import CLibPQ
import Foundation

/// One libpq connection (`PGconn`).
///
/// Every statement goes out as `PQexecParams` sends it (`PQsendQueryParams`: parse, bind and execute in one
/// round trip, as an unnamed statement) and `BEGIN`/`COMMIT` as `PQexec` does (`PQsendQuery`): nothing is left
/// on the server connection between two transactions (no named prepared statement), so a transaction-pooling
/// PgBouncer may hand each transaction to a different server connection, and one server connection to several
/// brokers. The answer is awaited with `poll` for at most ``callTimeout``. The `?` to `$n` rewrite is cached
/// per connection, keyed by the SQL text.
///
/// Not `Sendable`: a connection is confined to the serial queue of the ``PostgresWorker`` that owns it, and is
/// only ever handed to code running on that queue.
final class PostgresConnection: SQLConnection {
    /// A statement's text with `$n` placeholders and their count.
    private struct Rewritten {
        var text: String
        var parameterCount: Int
    }

    private let handle: OpaquePointer
    private let settings: PostgresSettings
    /// Rewritten statements keyed by their SQL text (with `?` placeholders); client-side only.
    private var rewritten: [String: Rewritten] = [:]
    /// Beyond this many the cache is emptied: the broker's SQL is a fixed set of constants, so only ad-hoc
    /// SQL can reach it.
    private let rewriteCacheLimit = 256
    /// With ``PostgresSettings/preparedStatements``: the names of the statements prepared on this server
    /// connection, by SQL text (emptied with `DEALLOCATE ALL` beyond ``rewriteCacheLimit``).
    private var prepared: [String: String] = [:]
    private var preparedCounter = 0
    /// How long one call waits for the server's answer; nil while migrating (unbounded).
    var callTimeout: Duration?
    /// Set when a call found no answer in time: what the server did with it is unknown, so the connection is
    /// broken for good and dropped from the pool, never reused.
    private(set) var timedOut = false
    /// SQLSTATEs of the statements that failed since ``clearFailures()``.
    private(set) var failures: [String?] = []

    /// Connects. libpq's defaults for a broker are added before the URL's own parameters, which win:
    /// a 2 s connect timeout (per host: a multi-host URL moves on to the next host after it) and TCP
    /// keepalives, so a vanished server is noticed instead of waited on forever. A hot standby (read-only) is
    /// refused: the broker writes. Failure throws `SQLError(.unavailable)` naming the server, never the password.
    init(settings: PostgresSettings) throws {
        self.settings = settings
        callTimeout = settings.callTimeout
        let keywords = [
            "connect_timeout", "application_name", "keepalives_idle", "keepalives_interval", "keepalives_count",
            "dbname",
        ]
        let values = ["2", "social-login-broker", "30", "10", "3", settings.conninfo]
        let opened = try withCStrings(keywords) { keywords in
            try withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let opened else {
            throw SQLError(.unavailable, "connecting to \(settings.redacted): libpq is out of memory")
        }
        guard PQstatus(opened) == CONNECTION_OK else {
            let message = settings.scrub(pqConnectionMessage(opened))
            PQfinish(opened)
            throw SQLError(.unavailable, "connecting to \(settings.redacted): \(message)")
        }
        if let standby = PQparameterStatus(opened, "in_hot_standby"), String(cString: standby) == "on" {
            PQfinish(opened)
            throw SQLError(
                .unavailable,
                "connecting to \(settings.redacted): the server is a read-only standby "
                    + "(a multi-host URL needs target_session_attrs=read-write)")
        }
        handle = opened
        broker_pq_discard_notices(handle)
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether libpq has seen the connection break; a broken connection is replaced, never reused.
    var isBroken: Bool { timedOut || PQstatus(handle) == CONNECTION_BAD }

    /// Whether a transaction is open (or open and failed).
    var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Whether the open transaction has failed: PostgreSQL ignores every statement until `ROLLBACK`, and
    /// `COMMIT` would quietly roll back.
    var isTransactionFailed: Bool { PQtransactionStatus(handle) == PQTRANS_INERROR }

    /// What begins a transaction of `kind`: its `BEGIN`, then the URL's `searchPath` as `SET LOCAL`, sent as
    /// one simple-protocol message (one round trip), so nothing is left set on the server connection after the
    /// transaction: behind a transaction-pooling PgBouncer the next transaction may run on another one.
    func begin(_ kind: TransactionKind) -> String {
        settings.searchPathStatement.map { "\(kind.begin); \($0)" } ?? kind.begin
    }

    /// Forgets the recorded failures.
    func clearFailures() { failures.removeAll() }

    // MARK: - SQLConnection

    /// Runs a statement and returns the number of rows it changed (0 for statements that change none).
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        let result = try run(sql, binds)
        defer { PQclear(result) }
        return Self.changes(result)
    }

    /// Runs a query and returns its rows.
    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let result = try run(sql, binds)
        defer { PQclear(result) }
        return try rows(result, sql)
    }

    /// Runs one statement (migrations, one-off DDL): the same as ``execute(_:_:)``, without caching its rewrite.
    @discardableResult
    func executeOnce(_ sql: String, _ binds: [SQLValue] = []) throws -> Int {
        let (text, count) = PostgresPlaceholders.rewrite(sql)
        let result = try run(sql, Rewritten(text: text, parameterCount: count), binds)
        defer { PQclear(result) }
        return Self.changes(result)
    }

    /// Runs a statement without parameters through the simple protocol: `BEGIN`, `COMMIT`, `ROLLBACK`.
    func command(_ sql: String) throws {
        PQclear(try check(exchange(sql) { PQsendQuery(handle, sql) }, sql))
    }

    // MARK: - Statements

    private func run(_ sql: String, _ binds: [SQLValue]) throws -> OpaquePointer {
        guard settings.preparedStatements else { return try run(sql, rewrite(sql), binds) }
        let statement = rewrite(sql)
        guard statement.parameterCount == binds.count else {
            throw SQLError(.other, "\(sql): \(binds.count) values bound to \(statement.parameterCount) placeholders")
        }
        let name = try preparedName(sql, statement)
        let result = try withParameters(binds, sql) { values in
            try exchange(sql) { PQsendQueryPrepared(handle, name, Int32(binds.count), values, nil, nil, 0) }
        }
        return try check(result, sql)
    }

    /// The name `statement` is prepared under on this connection, preparing it on first use (a direct connection
    /// only: ``PostgresSettings/preparedStatements``).
    private func preparedName(_ sql: String, _ statement: Rewritten) throws -> String {
        if let name = prepared[sql] { return name }
        if prepared.count >= rewriteCacheLimit {
            try command("DEALLOCATE ALL")
            prepared.removeAll(keepingCapacity: true)
        }
        preparedCounter += 1
        let name = "broker_\(preparedCounter)"
        PQclear(try check(exchange(sql) { PQsendPrepare(handle, name, statement.text, 0, nil) }, "preparing \(sql)"))
        prepared[sql] = name
        return name
    }

    /// Parses, binds and executes `statement` in one round trip (`PQexecParams`: an unnamed statement).
    private func run(_ sql: String, _ statement: Rewritten, _ binds: [SQLValue]) throws -> OpaquePointer {
        guard statement.parameterCount == binds.count else {
            throw SQLError(.other, "\(sql): \(binds.count) values bound to \(statement.parameterCount) placeholders")
        }
        let result = try withParameters(binds, sql) { values in
            try exchange(sql) {
                PQsendQueryParams(handle, statement.text, Int32(binds.count), nil, values, nil, nil, 0)
            }
        }
        return try check(result, sql)
    }

    /// `sql` with `$n` placeholders, rewritten on first use.
    private func rewrite(_ sql: String) -> Rewritten {
        if let cached = rewritten[sql] { return cached }
        let (text, count) = PostgresPlaceholders.rewrite(sql)
        if rewritten.count >= rewriteCacheLimit { rewritten.removeAll(keepingCapacity: true) }
        let statement = Rewritten(text: text, parameterCount: count)
        rewritten[sql] = statement
        return statement
    }

    /// Sends with `send` (`PQsendQuery…`, one round trip) and collects the answer as `PQexec` would (the
    /// first failed result, else the last), waiting at most ``callTimeout`` for it with `poll` on the socket.
    /// No answer in time marks the connection ``timedOut`` (broken: dropped, never reused) and throws
    /// `.unavailable`. nil: libpq could not send or read (a lost connection), for ``check(_:_:)`` to report.
    private func exchange(_ context: @autoclosure () -> String, _ send: () -> Int32) throws -> OpaquePointer? {
        guard send() == 1 else { return nil }
        let deadline = callTimeout.map { ContinuousClock.now + $0 }
        var kept: OpaquePointer?
        while true {
            while PQisBusy(handle) == 1 {
                do {
                    try waitForAnswer(until: deadline, context())
                } catch {
                    if let kept { PQclear(kept) }
                    throw error
                }
                guard PQconsumeInput(handle) == 1 else {
                    if let kept { PQclear(kept) }
                    return nil
                }
            }
            guard let result = PQgetResult(handle) else { return kept }
            if let previous = kept {
                let status = PQresultStatus(previous)
                if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY {
                    PQclear(result)
                    continue
                }
                PQclear(previous)
            }
            kept = result
        }
    }

    /// Waits until the socket is readable or `deadline` passes; past it, the connection is given up.
    private func waitForAnswer(until deadline: ContinuousClock.Instant?, _ context: @autoclosure () -> String) throws {
        let socket = PQsocket(handle)
        guard socket >= 0 else { return }  // PQconsumeInput reports the lost connection
        var milliseconds: Int32 = -1
        if let deadline, let timeout = callTimeout {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                timedOut = true
                failures.append(nil)
                throw SQLError(
                    .unavailable,
                    "\(context()): no answer from the database within \(timeout.components.seconds) s; "
                        + "the connection is dropped")
            }
            let (seconds, attoseconds) = remaining.components
            milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
        }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, milliseconds)  // EINTR or a timeout: the caller looks again
    }

    /// `pqCheck`, recording the failure's SQLSTATE and keeping the password out of the message.
    private func check(_ result: OpaquePointer?, _ context: @autoclosure () -> String) throws -> OpaquePointer {
        do {
            return try pqCheck(result, handle, context(), observe: { failures.append($0) })
        } catch let error as SQLError {
            throw SQLError(error.code, settings.scrub(error.message))
        }
    }

    /// Calls `body` with the values as NUL-terminated text (NULL for `.null`), in text format: PostgreSQL
    /// reads each according to the type it inferred for its placeholder.
    private func withParameters(
        _ binds: [SQLValue], _ sql: String, _ body: ([UnsafePointer<CChar>?]) throws -> OpaquePointer?
    ) throws -> OpaquePointer? {
        var texts: [String?] = []
        texts.reserveCapacity(binds.count)
        for (offset, value) in binds.enumerated() {
            switch value {
            case .null:
                texts.append(nil)
            case .integer(let number):
                texts.append(String(number))
            case .text(let text):
                guard !text.utf8.contains(0) else {
                    throw SQLError(
                        .other, "\(sql): value \(offset + 1) holds a NUL character, which PostgreSQL text cannot")
                }
                texts.append(text)
            }
        }
        return try withOptionalCStrings(texts) { try body($0) }
    }

    // MARK: - Results

    private static func changes(_ result: OpaquePointer) -> Int {
        guard let text = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// Integer types (int2, int4, int8, oid) come back as `.integer`, booleans as 0/1, NULL as `.null`,
    /// everything else as text.
    private func rows(_ result: OpaquePointer, _ sql: String) throws -> [SQLRow] {
        let rowCount = PQntuples(result)
        let fieldCount = PQnfields(result)
        var columns: [String] = []
        var types: [Oid] = []
        for field in 0..<fieldCount {
            columns.append(PQfname(result, field).map { String(cString: $0) } ?? "")
            types.append(PQftype(result, field))
        }
        let layout = SQLColumns(columns)
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(fieldCount))
            for field in 0..<fieldCount {
                guard PQgetisnull(result, row, field) == 0 else {
                    values.append(.null)
                    continue
                }
                guard let bytes = PQgetvalue(result, row, field) else {
                    throw SQLError(.other, "\(sql): no value at row \(row), column \(field)")
                }
                let length = Int(PQgetlength(result, row, field))
                let text = bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                }
                values.append(try Self.value(text, type: types[Int(field)], column: columns[Int(field)], sql))
            }
            rows.append(SQLRow(layout: layout, values: values))
        }
        return rows
    }

    private static func value(_ text: String, type: Oid, column: String, _ sql: String) throws -> SQLValue {
        switch type {
        case 20, 21, 23, 26:  // int8, int2, int4, oid
            guard let number = Int64(text) else { throw SQLError(.other, "\(sql): column \(column) is not an integer") }
            return .integer(number)
        case 16:  // bool
            return .integer(text == "t" ? 1 : 0)
        case 1700:  // numeric: whole numbers (COUNT over bigint sums) as integers
            return Int64(text).map(SQLValue.integer) ?? .text(text)
        default:
            return .text(text)
        }
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings that live for the call.
func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> T) throws -> T {
    try withOptionalCStrings(strings + [nil]) { pointers in
        try pointers.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { throw SQLError(.other, "no C strings") }
            return try body(base)
        }
    }
}

/// Calls `body` with copies of `strings` as C strings (nil stays nil) that live for the call.
private func withOptionalCStrings<T>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) throws -> T) throws -> T {
    var copies: [UnsafeMutablePointer<CChar>?] = []
    copies.reserveCapacity(strings.count)
    defer { for copy in copies { free(copy) } }
    for string in strings {
        guard let string else {
            copies.append(nil)
            continue
        }
        guard let copy = strdup(string) else { throw SQLError(.unavailable, "out of memory") }
        copies.append(copy)
    }
    return try body(copies.map { $0.map { UnsafePointer($0) } })
}
