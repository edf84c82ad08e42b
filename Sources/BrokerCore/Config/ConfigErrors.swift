public import BrokerModel

/// Every error found in a configuration, thrown by `serve` and printed by `check-config` all at once.
public struct ConfigErrors: Error, Sendable, Equatable, CustomStringConvertible {
    /// The errors, in the order found (never empty when thrown).
    public var errors: [ConfigError]

    /// Wraps `errors`.
    public init(_ errors: [ConfigError]) { self.errors = errors }

    /// One error on its line, or a count and one indented line per error.
    public var description: String {
        guard errors.count > 1 else { return errors.first?.description ?? "no errors" }
        return "\(errors.count) errors:\n" + errors.map { "  \($0)" }.joined(separator: "\n")
    }
}
