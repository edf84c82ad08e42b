public import BrokerModel
public import Foundation

/// The `outbox` section of the config file: how deliveries are retried and when they are given up.
public struct OutboxSettings: Sendable, Equatable {
    /// The longest wait between two attempts (`outbox.maxRetrySeconds`, 1-3600, default 60).
    public var maxRetryInterval: TimeInterval
    /// How long a job is tried before it is given up (`outbox.giveUpAfterHours`, 1-720, default 72).
    public var giveUpAfter: TimeInterval
    /// How long a claimed job stays held by its worker: longer than any handler may take (every handler's
    /// own timeout is far shorter), so a job is retaken only from a worker that died.
    public var leaseDuration: TimeInterval
    /// How often the worker looks for jobs it was not woken for (other instances', retries, restarts).
    public var pollInterval: TimeInterval
    /// The most jobs one pass claims and runs at once.
    public var batchSize: Int

    /// Creates settings.
    public init(
        maxRetryInterval: TimeInterval = 60, giveUpAfter: TimeInterval = 72 * 3600, leaseDuration: TimeInterval = 300,
        pollInterval: TimeInterval = 0.5, batchSize: Int = 16
    ) {
        self.maxRetryInterval = maxRetryInterval
        self.giveUpAfter = giveUpAfter
        self.leaseDuration = leaseDuration
        self.pollInterval = pollInterval
        self.batchSize = batchSize
    }

    /// Parses the `outbox` section (nil: every default).
    public init(reading section: ConfigReader?) throws {
        self.init()
        guard let section else { return }
        try section.allowOnly(["maxRetrySeconds", "giveUpAfterHours"])
        maxRetryInterval = TimeInterval(try section.int("maxRetrySeconds", default: 60, range: 1...3600))
        giveUpAfter = TimeInterval(try section.int("giveUpAfterHours", default: 72, range: 1...720)) * 3600
    }

    /// The wait after the `attempts`-th failed attempt: 1 s, doubling, at most ``maxRetryInterval``.
    public func retryDelay(afterAttempts attempts: Int) -> TimeInterval {
        let exponent = max(0, min(attempts - 1, 30))
        return min(maxRetryInterval, Double(1 << exponent))
    }
}
