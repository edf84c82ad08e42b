public import BrokerModel
public import Foundation

/// What every provider factory gets besides its config entry.
public struct ProviderContext: Sendable {
    /// Outbound HTTP.
    public var httpClient: any HTTPClient
    /// The clock.
    public var clock: any Clock
    /// Metrics.
    public var metrics: Metrics
    /// The logger.
    public var logger: Logger
    /// Tolerance for token times, from config.
    public var clockSkew: TimeInterval
    /// Whether `http://` provider URLs are allowed (stubs).
    public var allowInsecureURLs: Bool
    /// The broker's encryption key (`BROKER_ENCRYPTION_KEY`), for providers that keep a secret at rest; nil when
    /// none is configured.
    public var cipher: OutboxCipher?

    /// Creates a context.
    public init(
        httpClient: any HTTPClient, clock: any Clock, metrics: Metrics, logger: Logger, clockSkew: TimeInterval,
        allowInsecureURLs: Bool, cipher: OutboxCipher? = nil
    ) {
        self.cipher = cipher
        self.httpClient = httpClient
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.clockSkew = clockSkew
        self.allowInsecureURLs = allowInsecureURLs
    }
}
