public import BrokerModel

/// The `server` section of `providers.json`: the limits the HTTP server holds every client to (contract
/// section 7, "Hostile clients"). `docs/hardening.md` explains each one.
public struct HTTPServerLimits: Sendable, Equatable {
    /// The most connections open at once, from everyone (`server.maxConnections`, 16 to 1,000,000;
    /// default 4,096). The open-files limit is raised at start to make room.
    public var maxConnections: Int
    /// The most connections open at once from one client address (`server.maxConnectionsPerAddress`, 1 to
    /// `maxConnections`; default 64). A trusted proxy's own connections are exempt.
    public var maxConnectionsPerAddress: Int
    /// Seconds a connection may stay silent, between requests or in the middle of one, before it is closed
    /// (`server.idleTimeoutSeconds`, 1 to 3,600; default 10).
    public var idleTimeoutSeconds: Int
    /// Seconds a request has to arrive completely (headers and body), counted from the moment the connection
    /// opened or its previous response was sent (`server.requestDeadlineSeconds`, 1 to 3,600; default 30).
    /// A connection that trickles past it is closed.
    public var requestDeadlineSeconds: Int

    /// The documented defaults.
    public static let defaults = HTTPServerLimits(
        maxConnections: 4096, maxConnectionsPerAddress: 64, idleTimeoutSeconds: 10, requestDeadlineSeconds: 30)

    /// Limits that only stop nothing-at-all abuse: for test doubles (the stub providers) that one loopback
    /// client drives with many connections at once.
    public static let permissive = HTTPServerLimits(
        maxConnections: 16_384, maxConnectionsPerAddress: 16_384, idleTimeoutSeconds: 30, requestDeadlineSeconds: 300)

    /// Creates limits (unchecked: `init(config:)` validates what comes from a file).
    public init(
        maxConnections: Int, maxConnectionsPerAddress: Int, idleTimeoutSeconds: Int, requestDeadlineSeconds: Int
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.requestDeadlineSeconds = requestDeadlineSeconds
    }

    /// Reads the `server` section (nil: all defaults), refusing unknown fields and out-of-range numbers.
    public init(config section: ConfigReader?) throws {
        let defaults = HTTPServerLimits.defaults
        guard let section else {
            self = defaults
            return
        }
        try section.allowOnly([
            "maxConnections", "maxConnectionsPerAddress", "idleTimeoutSeconds", "requestDeadlineSeconds",
        ])
        maxConnections = try section.int("maxConnections", default: defaults.maxConnections, range: 16...1_000_000)
        maxConnectionsPerAddress = try section.int(
            "maxConnectionsPerAddress", default: min(defaults.maxConnectionsPerAddress, maxConnections),
            range: 1...maxConnections)
        idleTimeoutSeconds = try section.int(
            "idleTimeoutSeconds", default: defaults.idleTimeoutSeconds, range: 1...3600)
        requestDeadlineSeconds = try section.int(
            "requestDeadlineSeconds", default: defaults.requestDeadlineSeconds, range: 1...3600)
    }
}
