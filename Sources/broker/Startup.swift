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
        _ = try ProviderRegistry(config: config, context: context)
        if let file = config.firebaseServiceAccountFile { _ = try FirebaseServiceAccount(contentsOf: file) }
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

    /// Opens the database named by `--database` and brings its schema up to date.
    static func openStore(_ location: String) async throws -> (SQLBrokerStore, any SQLDatabase) {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            throw ConfigError(field: "database", "PostgreSQL is not available in this build yet; use a SQLite path")
        }
        let database = try SQLiteDatabase(path: location)
        return (try await SQLBrokerStore(database: database), database)
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
