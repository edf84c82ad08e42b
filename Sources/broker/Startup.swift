import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import Foundation

/// What `serve` and `check-config` share: reading and validating the configuration.
enum Startup {
    /// The top-level config sections of the modules outside the core this executable runs.
    static let configSections: [any ConfigSection.Type] = FirebaseModule.configSections

    /// The modules outside the core this executable runs, made from the parsed `config` (Firebase's: its service
    /// account is loaded here).
    static func modules(config: BrokerConfig, client: any HTTPClient) throws -> [any BrokerModule] {
        [try FirebaseModule(config: config, httpClient: client)]
    }

    /// The validation `serve` and `check-config` share (``ConfigValidation``): the config file, every provider
    /// entry, the service account, the admin token and the database location, all errors at once.
    static func validate(options: LaunchOptions, environment: [String: String], client: any HTTPClient, listenPort: Int?)
        -> ConfigValidation
    {
        let context = ProviderContext(
            httpClient: client, clock: SystemClock(), metrics: Metrics(), logger: .disabled, clockSkew: 60,
            allowInsecureURLs: false)
        return ConfigValidation(
            sources: options.sources, environment: environment, context: context, listenPort: listenPort,
            sections: configSections, databaseURLError: databaseURLError)
    }

    /// What is wrong with the PostgreSQL URL `location`, as ``openDatabase(_:environment:)`` refuses it (the same
    /// check): nil for a URL it accepts, and for anything that is not a PostgreSQL URL.
    @Sendable static func databaseURLError(_ location: String) -> ConfigError? {
        guard isPostgres(location) else { return nil }
        do {
            try PostgresDatabase.check(url: location)
            return nil
        } catch let error as SQLError {
            return ConfigError(field: "database", error.message)  // the message has no password
        } catch {
            return ConfigError(field: "database", "\(error)")
        }
    }

    /// The admin bearer token: `BROKER_ADMIN_TOKEN`, else the trimmed contents of `BROKER_ADMIN_TOKEN_FILE`.
    static func adminToken(_ environment: [String: String]) throws -> String? {
        try ConfigValidation.adminToken(environment)
    }

    /// The configured providers, for a CLI command: each factory validates its entry, nothing is fetched. The
    /// client is there only to build them; shut it down when the command ends. `cipher` is the one `serve` uses
    /// (``OutboxCipher/fromEnvironment(_:)``): a provider that keeps a secret at rest (Apple's `clientSecret`)
    /// refuses to be built without it, so every command passes it.
    static func providers(_ config: BrokerConfig, cipher: OutboxCipher?) throws -> (ProviderRegistry, CurlHTTPClient) {
        let client = try CurlHTTPClient()
        let context = ProviderContext(
            httpClient: client, clock: SystemClock(), metrics: Metrics(), logger: .disabled,
            clockSkew: config.clockSkew, allowInsecureURLs: config.allowInsecureProviderURLs, cipher: cipher)
        do {
            return (try ProviderRegistry(config: config, catalog: .builtIn, context: context), client)
        } catch {
            Task { await client.shutdown() }
            throw error
        }
    }

    /// Opens the database named by `--database` and brings its schema up to date: a `postgres://` or
    /// `postgresql://` URL opens a PostgreSQL pool (`poolSize` in the URL, else `BROKER_DATABASE_POOL_SIZE`,
    /// else 4 connections), anything else a SQLite file. The events of its changes go to `events`' endpoints.
    static func openStore(
        _ location: String, environment: [String: String] = [:], events: EventSettings = EventSettings()
    ) async throws
        -> (SQLBrokerStore, any SQLDatabase)
    {
        let database = try await openDatabase(location, environment: environment)
        do {
            return (try await SQLBrokerStore(database: database, events: EventRouting.to(events)), database)
        } catch {
            await database.close()
            throw error
        }
    }

    /// Opens the database named by `location` without migrating it.
    static func openDatabase(_ location: String, environment: [String: String]) async throws -> any SQLDatabase {
        guard isPostgres(location) else { return try await SQLiteDatabase.open(path: location) }
        var poolSize: Int?
        if let text = environment["BROKER_DATABASE_POOL_SIZE"], !text.isEmpty {
            guard let size = Int(text), (1...100).contains(size) else {
                throw ConfigError(field: "BROKER_DATABASE_POOL_SIZE", "must be a whole number from 1 to 100")
            }
            poolSize = size
        }
        if let error = databaseURLError(location) { throw error }  // check-config's check
        let database = try PostgresDatabase(url: location, poolSize: poolSize)
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

/// `broker check-config`: validates the config exactly as `serve` does, without starting anything; prints every
/// error and warning. Exits 0 when `serve` would start (warnings or not), 1 otherwise.
enum CheckConfigCommand {
    static func run(options: LaunchOptions, environment: [String: String]) async throws -> Int32 {
        let client = try CurlHTTPClient()
        defer { Task { await client.shutdown() } }
        let validation = Startup.validate(
            options: options, environment: environment, client: client, listenPort: options.port)
        for warning in validation.warnings { BrokerCLI.printError("warning: \(warning)") }
        let config = try validation.validConfig()
        let enabled = config.providers.filter { (try? $0.value.bool("enabled", default: true)) ?? false }.keys.sorted()
        let warnings = validation.warnings.count
        print(
            "\(options.configPath): OK (providers: \(enabled.isEmpty ? "none" : enabled.joined(separator: ", ")); "
                + "issuer \(config.issuer)\(warnings == 0 ? "" : "; \(warnings) warning\(warnings == 1 ? "" : "s")"))")
        return 0
    }
}
