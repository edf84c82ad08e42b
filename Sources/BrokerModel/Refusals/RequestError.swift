/// A request a service or the HTTP layer refuses as such: a field it cannot use, a resource or route that is not
/// there, a body over the limit, a server shutting down. The message of ``Code/invalidRequest`` is for the caller
/// (never a token, password or key).
public struct RequestError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// A field the operation cannot use; `detail` says which and why.
        case invalidRequest
        /// No such resource or route.
        case notFound
        /// A body over the listener's limit (`limit` bytes).
        case payloadTooLarge
        /// The server is shutting down and admits no more requests.
        case shuttingDown
    }

    /// The reason.
    public var code: Code
    /// For ``Code/invalidRequest``: the caller's message.
    public var detail: String
    /// For ``Code/payloadTooLarge``: the listener's limit in bytes.
    public var limit: Int

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "", limit: Int = 0) {
        self.code = code
        self.detail = detail
        self.limit = limit
    }

    /// A field the operation cannot use, with the message the caller sees.
    public static func invalidRequest(_ message: String) -> RequestError { RequestError(.invalidRequest, message) }
    /// No such resource or route.
    public static let notFound = RequestError(.notFound)

    /// The refusal (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .invalidRequest: .invalidRequest(detail)
        case .notFound: .notFound
        case .payloadTooLarge: .payloadTooLarge(limit: limit)
        case .shuttingDown: .shuttingDown
        }
    }
}
