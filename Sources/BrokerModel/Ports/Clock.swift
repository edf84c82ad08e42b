public import Foundation

/// A source of the current time. Tests inject a ``ManualClock`` instead of sleeping.
public protocol Clock: Sendable {
    /// The current instant.
    var now: Date { get }
}

/// The wall clock.
public struct SystemClock: Clock {
    /// Creates the wall clock.
    public init() {}
    /// The current instant.
    public var now: Date { Date() }
}

/// A clock that moves only when told to; for tests.
public final class ManualClock: Clock, @unchecked Sendable {
    // Guarded by `lock`.
    private var current: Date
    private let lock = NSLock()

    /// Creates a clock standing at `start`.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    /// The instant the clock stands at.
    public var now: Date { lock.withLock { current } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
