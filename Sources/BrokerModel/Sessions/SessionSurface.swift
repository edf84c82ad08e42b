/// The listener a session was made on, stored with the session (`native`, or another listener's). A session works
/// only where it began: the native API's `POST /v1/token` refuses a session of another listener, and each listener
/// refuses the native API's (contract section 11). The listener's ``SessionFormat`` shapes the session's ID tokens.
///
/// A name this version does not know (read back from the store) is a surface no listener accepts.
public struct SessionSurface: RawRepresentable, Hashable, Sendable {
    /// The stored name.
    public var rawValue: String

    /// The surface stored as `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The broker's own API (`/v1`).
    public static let native = SessionSurface(rawValue: "native")
}
