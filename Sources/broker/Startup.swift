import BrokerCore
import BrokerDrivers
import Foundation

/// What `serve` and `check-config` share: reading and validating the configuration.
enum Startup {
    /// Parses the config file and builds every provider (validating each entry) and the service account.
    static func validatedConfig(options: LaunchOptions, environment: [String: String], client: any HTTPClient)
        throws -> BrokerConfig
    {
        let config = try BrokerConfig(contentsOf: options.configPath, environment: environment)
        let context = ProviderContext(
            httpClient: client, clock: SystemClock(), metrics: Metrics(), logger: .disabled,
            clockSkew: config.clockSkew, allowInsecureURLs: config.allowInsecureProviderURLs)
        _ = try ProviderRegistry(config: config, catalog: .builtIn, context: context)
        if let file = config.firebaseServiceAccountFile {
            _ = try FirebaseServiceAccount(contentsOf: file, allowInsecureURLs: config.allowInsecureProviderURLs)
        }
        return config
    }

    /// The admin bearer token: `BROKER_ADMIN_TOKEN`, else the trimmed contents of `BROKER_ADMIN_TOKEN_FILE`.
    static func adminToken(_ environment: [String: String]) throws -> String? {
        if let token = environment["BROKER_ADMIN_TOKEN"], !token.isEmpty {
            guard token.count >= 16 else { throw ConfigError(field: "BROKER_ADMIN_TOKEN", "the token must be at least 16 characters") }
            return token
        }
        guard let path = environment["BROKER_ADMIN_TOKEN_FILE"], !path.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(field: "BROKER_ADMIN_TOKEN_FILE", "cannot read \(path)")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16 else { throw ConfigError(field: "BROKER_ADMIN_TOKEN_FILE", "the token must be at least 16 characters") }
        return token
    }

    /// Opens the database named by `--database` and brings its schema up to date: a `postgres://` or
    /// `postgresql://` URL opens a PostgreSQL pool (`poolSize` in the URL, else `BROKER_DATABASE_POOL_SIZE`,
    /// else 4 connections), anything else a SQLite file.
    static func openStore(_ location: String, environment: [String: String] = [:]) async throws
        -> (SQLBrokerStore, any SQLDatabase)
    {
        let database = try await openDatabase(location, environment: environment)
        do {
            return (try await SQLBrokerStore(database: database), database)
        } catch {
            await database.close()
            throw error
        }
    }

    /// Opens the database named by `location` without migrating it.
    static func openDatabase(_ location: String, environment: [String: String]) async throws -> any SQLDatabase {
        guard isPostgres(location) else { return try SQLiteDatabase(path: location) }
        var poolSize: Int?
        if let text = environment["BROKER_DATABASE_POOL_SIZE"], !text.isEmpty {
            guard let size = Int(text), (1...100).contains(size) else {
                throw ConfigError(field: "BROKER_DATABASE_POOL_SIZE", "must be a whole number from 1 to 100")
            }
            poolSize = size
        }
        let database: PostgresDatabase
        do {
            database = try PostgresDatabase(url: location, poolSize: poolSize)
        } catch let error as SQLError where error.code == .other {
            throw ConfigError(field: "database", error.message)  // a malformed URL; the message has no password
        }
        do {
            try await database.ping()  // a wrong address or password fails here, not at the first request
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    /// Whether `location` names a PostgreSQL database.
    static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// The database as logs may show it: a PostgreSQL URL without its password and parameters.
    static func describeDatabase(_ location: String) -> String {
        guard isPostgres(location) else { return location }
        return PostgresDatabase.redacted(url: location) ?? "postgres://(unparsable URL)"
    }
}

/// `broker check-config`: validates the config as `serve` would, without starting anything.
enum CheckConfigCommand {
    static func run(options: LaunchOptions, environment: [String: String]) async throws -> Int32 {
        let client = try CurlHTTPClient()
        defer { Task { await client.shutdown() } }
        let config = try Startup.validatedConfig(options: options, environment: environment, client: client)
        let enabled = config.providers.filter { (try? $0.value.bool("enabled", default: true)) ?? false }.keys.sorted()
        print("\(options.configPath): OK (providers: \(enabled.isEmpty ? "none" : enabled.joined(separator: ", ")))")
        return 0
    }
}
