/// Where ``ConfigValidation`` reads the broker's settings from: the config file and the database location. The
/// executable resolves both from its command line and environment (a flag, its environment variable, the
/// default); the core needs only the result.
public struct ConfigSources: Sendable, Equatable {
    /// The config file's path.
    public var configPath: String
    /// The database: a SQLite file's path, or a `postgres://…` URL.
    public var database: String

    /// The sources at these locations.
    public init(configPath: String, database: String) {
        self.configPath = configPath
        self.database = database
    }
}
