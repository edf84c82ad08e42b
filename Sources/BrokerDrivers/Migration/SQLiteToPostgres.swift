import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation

/// Moves a broker's SQLite database into PostgreSQL: `broker migrate-sqlite`.
///
/// Both databases are first brought to this build's schema (``BrokerSchema``), then every table of the
/// SQLite file (found in its `sqlite_master`, so tables added by later versions come along without a change
/// here; `schema_migrations` excepted) is copied, parents before children, in one PostgreSQL transaction read
/// from one SQLite snapshot. The copy refuses a PostgreSQL database that already holds a row in any of those
/// tables, or whose columns differ from the file's, and changes nothing then.
public enum SQLiteToPostgres {
    /// The rows copied per table.
    public struct Report: Sendable, Equatable {
        /// `(table, rows)`, in copy order.
        public var tables: [Table]

        /// One table's count.
        public struct Table: Sendable, Equatable {
            /// The table's name.
            public var name: String
            /// The rows copied.
            public var rows: Int
        }
    }

    /// A copy refused before anything was written.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Why.
        public var description: String
    }

    /// Rows read from SQLite (and inserted into PostgreSQL in one statement) at a time.
    static let batchSize = 200

    /// Copies the SQLite database at `sqlitePath` into `target`; see the type's documentation.
    /// - Throws: ``Refusal`` for a missing file, a non-empty or different target; `SQLError` from either driver.
    public static func copy(from sqlitePath: String, to target: PostgresDatabase) async throws -> Report {
        guard FileManager.default.fileExists(atPath: sqlitePath) else {
            throw Refusal(description: "no SQLite database at \(sqlitePath)")
        }
        let source = try await SQLiteDatabase.open(path: sqlitePath, readers: 1)
        do {
            try await migrate(source, target)
            await source.close()
        } catch {
            await source.close()
            throw error
        }
        // The file is read on the PostgreSQL worker's own thread, inside the transaction that writes.
        return try await target.write { connection in
            let reader = try SQLiteConnection(path: sqlitePath, role: .reader)
            return try reader.transaction(immediate: false) { reader in
                try copyTables(from: reader, to: connection)
            }
        }
    }

    /// Brings both databases to this build's schema; refuses a file made by a newer broker.
    private static func migrate(_ source: SQLiteDatabase, _ target: PostgresDatabase) async throws {
        let known = BrokerSchema.migrations(for: .sqlite).map(\.version).max() ?? 0
        let newest = try await source.read { connection -> Int64 in
            let exists = try connection.query(
                "SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'", [])
            guard !exists.isEmpty else { return 0 }
            return try connection.query("SELECT MAX(version) AS v FROM schema_migrations", []).first?.integer("v") ?? 0
        }
        guard newest <= known else {
            throw Refusal(description: "the SQLite database is at schema version \(newest), newer than this broker's \(known)")
        }
        try await source.migrate(BrokerSchema.migrations(for: .sqlite))
        try await target.migrate(BrokerSchema.migrations(for: .postgres))
    }

    private static func copyTables(from reader: SQLiteConnection, to target: any SQLConnection) throws -> Report {
        let tables = try orderedTables(reader)
        var columnsByTable: [String: [String]] = [:]
        for table in tables {
            let columns = try reader.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
                .compactMap { $0.text("name") }
            let targetColumns = try target.query(
                """
                SELECT column_name FROM information_schema.columns \
                WHERE table_schema = current_schema() AND table_name = ?
                """, [.text(table)]
            ).compactMap { $0.text("column_name") }
            guard Set(columns) == Set(targetColumns) else {
                throw Refusal(
                    description: "table \(table) has columns \(columns.sorted()) in SQLite but "
                        + (targetColumns.isEmpty ? "is missing in PostgreSQL" : "\(targetColumns.sorted()) in PostgreSQL"))
            }
            let present = try target.query("SELECT EXISTS (SELECT 1 FROM \(quoted(table))) AS present", [])
            guard present.first?.integer("present") != 1 else {
                throw Refusal(
                    description: "the PostgreSQL database already holds rows in \(table): copy into an empty one "
                        + "(and start brokers on it only after the copy)")
            }
            columnsByTable[table] = columns
        }
        var report = Report(tables: [])
        for table in tables {
            let columns = columnsByTable[table] ?? []
            let copied = try copyRows(of: table, columns: columns, from: reader, to: target)
            let count = try target.query("SELECT COUNT(*) AS n FROM \(quoted(table))", []).first?.integer("n")
            guard count == Int64(copied) else {
                throw SQLError(.other, "\(table): \(copied) rows copied but \(count ?? -1) found afterwards")
            }
            report.tables.append(Report.Table(name: table, rows: copied))
        }
        return report
    }

    /// The broker's tables in the file, each after the tables its foreign keys point to.
    private static func orderedTables(_ reader: SQLiteConnection) throws -> [String] {
        let names = try reader.query(
            """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
            AND name <> 'schema_migrations' ORDER BY name
            """, []
        ).compactMap { $0.text("name") }
        var parents: [String: Set<String>] = [:]
        for name in names {
            parents[name] = Set(
                try reader.query("SELECT \"table\" AS parent FROM pragma_foreign_key_list(?)", [.text(name)])
                    .compactMap { $0.text("parent") }
                    .filter { $0 != name && names.contains($0) })
        }
        var ordered: [String] = []
        while ordered.count < names.count {
            guard let next = names.first(where: { !ordered.contains($0) && parents[$0, default: []].isSubset(of: ordered) })
            else { throw Refusal(description: "the tables' foreign keys form a cycle") }
            ordered.append(next)
        }
        return ordered
    }

    /// Copies `table` in rowid order (a `WITHOUT ROWID` table in its primary key's), `batchSize` rows per INSERT;
    /// returns the rows copied.
    private static func copyRows(
        of table: String, columns: [String], from reader: SQLiteConnection, to target: any SQLConnection
    ) throws -> Int {
        let keys = try copyOrder(of: table, in: reader)
        let keyList = keys.joined(separator: ", ")
        let columnList = columns.map(quoted).joined(separator: ", ")
        let select = "SELECT \(keyList), \(columnList) FROM \(quoted(table))"
        let after = keys.count == 1 ? "\(keyList) > ?" : "(\(keyList)) > (\(placeholders(keys.count)))"
        let first = "\(select) ORDER BY \(keyList) LIMIT ?"
        let next = "\(select) WHERE \(after) ORDER BY \(keyList) LIMIT ?"
        let row = "(" + placeholders(columns.count) + ")"
        var copied = 0
        var lastKey: [SQLValue]?
        while true {
            let limit = SQLValue.integer(Int64(batchSize))
            let rows = try lastKey.map { try reader.query(next, $0 + [limit]) } ?? reader.query(first, [limit])
            guard let last = rows.last else { break }
            let insert =
                "INSERT INTO \(quoted(table)) (\(columnList)) VALUES "
                + Array(repeating: row, count: rows.count).joined(separator: ", ")
            try target.execute(insert, rows.flatMap { $0.values.dropFirst(keys.count) })
            copied += rows.count
            lastKey = Array(last.values.prefix(keys.count))
        }
        return copied
    }

    /// What `table` is copied in the order of: `rowid`, or the quoted primary-key columns of a `WITHOUT ROWID`
    /// table (the audit log since schema version 22), which has no rowid.
    private static func copyOrder(of table: String, in reader: SQLiteConnection) throws -> [String] {
        let sql =
            try reader.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])
            .first?.text("sql") ?? ""
        guard sql.uppercased().contains("WITHOUT ROWID") else { return ["rowid"] }
        let keys = try reader.query("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [.text(table)])
            .compactMap { $0.text("name") }
        guard !keys.isEmpty else { throw SQLError(.other, "\(table): a WITHOUT ROWID table without a primary key") }
        return keys.map(quoted)
    }

    /// `count` comma-separated placeholders.
    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// `name` as a quoted SQL identifier, valid in both databases.
    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
