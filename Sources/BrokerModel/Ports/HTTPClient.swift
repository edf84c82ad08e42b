public import Foundation

/// An outbound HTTP request (to a provider).
public struct HTTPClientRequest: Sendable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// Header fields to send.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: [UInt8]
    /// The whole exchange must finish within this many seconds.
    public var timeout: TimeInterval

    /// Creates a request; the default timeout is the contract's 5 s.
    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        timeout: TimeInterval = 5
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// An outbound HTTP response.
public struct HTTPClientResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields, names lower-cased.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
    }
}

/// Why an outbound request produced no response.
public struct HTTPClientError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// The timeout passed before the response was complete.
        case timeout
        /// No connection could be made (refused, DNS, TLS).
        case connectionFailed
        /// Anything else the transport reported.
        case transport
    }
    /// The kind of failure.
    public var code: Code
    /// A description for logs; never contains a header or body.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}

/// The port for outbound HTTP (libcurl's multi interface in production). No redirects are followed.
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns the response, or throws ``HTTPClientError``.
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse
}

extension HTTPClientError {
    /// None: an internal failure (``CodedError``). An outbound call that failed.
    public var refusal: Refusal? { nil }
}
