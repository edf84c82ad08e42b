import Foundation

/// An HTTP request as the broker's handlers see it, whatever server delivered it.
public struct HTTPRequest: Sendable {
    /// The method, upper case (`GET`, `POST`, ...).
    public var method: String
    /// The path without the query string, e.g. `/v1/signin/password`.
    public var path: String
    /// The decoded query-string arguments.
    public var query: [String: String]
    /// The header fields, names lower-cased.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]
    /// The address of the connection's other end, as the server saw it (`192.0.2.1`, `2001:db8::1`); empty
    /// when the request did not come over a socket.
    public var peerAddress: String
    /// The client's address: `peerAddress`, or, when the peer is a trusted proxy, what its `X-Forwarded-For`
    /// says (``TrustedProxies/clientAddress(peer:forwardedFor:)``). Per-address limits, logs and audit use it.
    public var clientAddress: String

    /// Creates a request; `clientAddress` starts as `peerAddress` until the app resolves it.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], peerAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
        self.peerAddress = peerAddress
        self.clientAddress = peerAddress
    }
}

/// An HTTP response produced by a handler.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields in the order they are sent.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What a handler knows about its request besides the request itself.
public struct RequestContext: Sendable {
    /// The request id, echoed as `X-Request-Id` and on every log line.
    public var requestID: String
    /// The request's logger (carries the request id).
    public var logger: Logger
    /// Path parameters by name (`{provider}` → `provider`).
    public var parameters: [String: String]

    /// Creates a context.
    public init(requestID: String, logger: Logger, parameters: [String: String]) {
        self.requestID = requestID
        self.logger = logger
        self.parameters = parameters
    }
}

extension HTTPResponse {
    /// A JSON response.
    public static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: value.serialized())
    }

    /// A JSON response whose text is already written (``JSONWriter``).
    public static func json(_ status: Int, _ text: JSONText) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: text.bytes)
    }
}
