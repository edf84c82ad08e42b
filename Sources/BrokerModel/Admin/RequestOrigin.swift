/// Where the request being handled came from, as its audit events record it: the client's address (resolved
/// through `trustedProxies`) and its user agent. The HTTP app binds it around a request's handler as a task-local
/// value, so the services that record events need not pass it along; ``AuditEvent`` reads it when made. The CLI
/// binds none, and its events carry neither.
public struct RequestOrigin: Sendable, Equatable {
    /// The longest user agent kept; a longer one is cut there.
    public static let maximumUserAgentLength = 256

    /// The client's address, if known.
    public var clientAddress: String?
    /// The `User-Agent` header, without control characters, at most ``maximumUserAgentLength`` characters.
    public var userAgent: String?

    /// The origin of the request this task is handling, if any.
    @TaskLocal public static var current: RequestOrigin?

    /// An origin; empty values become nil, and the user agent loses control characters and is cut to length
    /// (it is the client's text, shown to admins and stored).
    public init(clientAddress: String?, userAgent: String?) {
        self.clientAddress = clientAddress.flatMap { $0.isEmpty ? nil : $0 }
        self.userAgent = userAgent.flatMap { agent in
            let kept = agent.unicodeScalars.filter { scalar in
                let category = scalar.properties.generalCategory
                return category != .control && category != .format
            }
            let printable = String(String.UnicodeScalarView(kept)).prefix(Self.maximumUserAgentLength)
            return printable.isEmpty ? nil : String(printable)
        }
    }
}
