import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation

/// `broker migrate-sqlite --from PATH --database postgres://…`: copies an existing SQLite database into an
/// empty PostgreSQL one (see ``SQLiteToPostgres``), then prints what it copied.
enum MigrateSQLiteCommand {
    static let usage = "usage: broker migrate-sqlite --from ./broker.sqlite --database postgres://USER:PASSWORD@HOST:5432/DB"

    static func run(options: LaunchOptions, environment: [String: String]) async throws -> Int32 {
        guard let from = options.value("--from"), !from.isEmpty else {
            throw ConfigError(field: "--from", "names the SQLite file to copy\n\(usage)")
        }
        guard Startup.isPostgres(options.database) else {
            throw ConfigError(field: "--database", "must be the postgres:// URL to copy into\n\(usage)")
        }
        let target = try await Startup.openDatabase(options.database, environment: environment)
        guard let postgres = target as? PostgresDatabase else {
            await target.close()
            throw ConfigError(field: "--database", "must be the postgres:// URL to copy into")
        }
        let report: SQLiteToPostgres.Report
        do {
            report = try await SQLiteToPostgres.copy(from: from, to: postgres)
        } catch {
            await postgres.close()
            throw error
        }
        await postgres.close()
        print("Copied \(from) into \(Startup.describeDatabase(options.database)):")
        for table in report.tables {
            print("  \(table.name): \(table.rows) row\(table.rows == 1 ? "" : "s")")
        }
        return 0
    }
}
