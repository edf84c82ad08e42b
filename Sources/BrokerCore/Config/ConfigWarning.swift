/// Something in a configuration that starts but is probably not what its author meant (a placeholder client id,
/// an issuer naming another port); `check-config` prints it and `serve` logs it at start.
public struct ConfigWarning: Sendable, Equatable, CustomStringConvertible {
    /// The dotted path of the field (or the flag) concerned.
    public var field: String
    /// What looks wrong and what to do.
    public var message: String

    /// Creates a warning.
    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    /// `field: message`.
    public var description: String { "\(field): \(message)" }
}
