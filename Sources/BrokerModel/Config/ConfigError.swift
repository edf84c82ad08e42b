/// A problem in a configuration, naming the field at fault (e.g. `providers.<id>.audiences`). An error refuses the
/// configuration at start; a warning (a placeholder client id, an issuer naming another port) lets it start, and
/// `check-config` prints it and `serve` logs it.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whether the problem stops the broker from starting.
    public enum Severity: String, Sendable {
        /// The configuration is refused.
        case error
        /// The configuration starts, but is probably not what its author meant.
        case warning
    }

    /// The dotted path of the field (or the flag) concerned.
    public var field: String
    /// What is wrong with it, and for a warning what to do.
    public var message: String
    /// Whether it refuses the configuration.
    public var severity: Severity

    /// Creates a problem, an error unless told.
    public init(field: String, _ message: String, severity: Severity = .error) {
        self.field = field
        self.message = message
        self.severity = severity
    }

    /// A problem that lets the configuration start.
    public static func warning(field: String, _ message: String) -> ConfigError {
        ConfigError(field: field, message, severity: .warning)
    }

    /// `field: message`.
    public var description: String { "\(field): \(message)" }
}
