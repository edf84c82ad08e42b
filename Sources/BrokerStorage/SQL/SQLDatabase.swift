public import BrokerModel

/// A value bound to or read from a SQL statement. Times are stored as integer milliseconds since 1970,
/// booleans as 0/1, so one schema serves SQLite and PostgreSQL.
public enum SQLValue: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// UTF-8 text.
    case text(String)
}

/// The column names of a query's rows, with the index of each name: built once per statement (a driver keeps it
/// with its prepared statement) and shared by every row, so a look-up by name costs one hash, not a scan.
public final class SQLColumns: Sendable {
    /// Column names, in select order.
    public let names: [String]
    /// The index of each name (the first, when a name repeats).
    private let indices: [String: Int]

    /// The columns `names`, in select order.
    public init(_ names: [String]) {
        self.names = names
        var indices: [String: Int] = [:]
        indices.reserveCapacity(names.count)
        for (index, name) in names.enumerated() where indices[name] == nil { indices[name] = index }
        self.indices = indices
    }

    /// The index of column `name`, nil when there is none.
    public func index(of name: String) -> Int? { indices[name] }
}

/// One row of a query result.
public struct SQLRow: Sendable {
    /// The row's columns, shared with the other rows of its query.
    public let layout: SQLColumns
    /// Values, parallel to `columns`.
    public var values: [SQLValue]

    /// Column names, in select order.
    public var columns: [String] { layout.names }

    /// Creates a row.
    public init(columns: [String], values: [SQLValue]) {
        self.init(layout: SQLColumns(columns), values: values)
    }

    /// Creates a row of `layout`'s columns.
    public init(layout: SQLColumns, values: [SQLValue]) {
        self.layout = layout
        self.values = values
    }

    /// The value of column `name`, or `.null` when there is no such column.
    public subscript(_ name: String) -> SQLValue {
        guard let index = layout.index(of: name) else { return .null }
        return values[index]
    }

    /// The text in column `name`, nil for NULL.
    public func text(_ name: String) -> String? {
        if case .text(let value) = self[name] { return value }
        return nil
    }

    /// The integer in column `name`, nil for NULL.
    public func integer(_ name: String) -> Int64? {
        if case .integer(let value) = self[name] { return value }
        return nil
    }
}

/// A failure reported by a SQL driver, funnelled from the C library's return codes.
public struct SQLError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// A UNIQUE or PRIMARY KEY constraint was violated.
        case uniqueViolation
        /// The database stayed locked past the busy timeout.
        case busy
        /// The database cannot be reached or opened.
        case unavailable
        /// Any other error.
        case other
    }
    /// The kind of failure.
    public var code: Code
    /// The driver's message, for logs only.
    public var message: String
    /// The driver's message (``CodedError``'s name for it).
    public var detail: String { message }

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// A connection inside one transaction. Statements use `?` placeholders in every dialect.
public protocol SQLConnection {
    /// Runs a statement and returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int
    /// Runs a query and returns its rows.
    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow]
}

/// The SQL dialects the broker knows.
public enum SQLDialect: String, Sendable {
    /// SQLite 3.
    case sqlite
    /// PostgreSQL.
    case postgres
}

/// One versioned schema change, applied once, in order.
public struct SQLMigration: Sendable {
    /// The schema version this migration brings the database to.
    public var version: Int
    /// The statements, run in one transaction.
    public var statements: [String]

    /// Creates a migration.
    public init(version: Int, statements: [String]) {
        self.version = version
        self.statements = statements
    }
}

/// The port for a SQL database (SQLite or PostgreSQL driver). Bodies run synchronously on the driver's own
/// thread, never on Swift's cooperative pool, inside one transaction that commits when the body returns and
/// rolls back when it throws. A write body may run more than once (PostgreSQL reruns a serializable
/// transaction that lost a conflict), so it must have no effect outside its connection.
public protocol SQLDatabase: Sendable {
    /// The dialect, for the few statements that differ.
    var dialect: SQLDialect { get }
    /// Runs `body` in a write transaction.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// Runs `body` in a read-only transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// Applies the migrations whose version is above the database's, each in its own transaction.
    func migrate(_ migrations: [SQLMigration]) async throws
    /// Closes the database.
    func close() async
    /// Asks the database to make what committed writes deleted or overwrote (a delivered mail's code) unreadable
    /// in its files soon; returns at once. SQLite zeroes deleted content (`secure_delete`), so this copies the WAL
    /// into the database file and empties the WAL, whose older frames still hold it. The default does nothing.
    func eraseDeletedContent()
}

extension SQLDatabase {
    /// Nothing to do (PostgreSQL: its files are the server's, and `VACUUM` its business).
    public func eraseDeletedContent() {}
}

extension SQLError {
    /// Storage down or busy; nil for any other failure (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .busy, .unavailable: .storageUnavailable
        case .uniqueViolation, .other: nil
        }
    }
}
