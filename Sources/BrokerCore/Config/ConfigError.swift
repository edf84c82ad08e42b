/// A configuration refused at start, naming the field at fault (e.g. `providers.<id>.audiences`).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The dotted path of the field.
    public var field: String
    /// What is wrong with it.
    public var message: String

    /// Creates an error.
    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String { "\(field): \(message)" }
}
