public import BrokerModel

/// The port behind which an HTTP server driver (libmicrohttpd) serves the broker's handler.
///
/// A driver calls `handler` for every complete request, without blocking a thread while the handler
/// awaits, and refuses bodies over `maxBodyBytes` with 413 before the handler runs. What it refuses itself (that
/// body, a request with ambiguous framing, one that arrives while it shuts down) it answers with `refusals`, in
/// the dialect of the application it serves (``BrokerApp/render(_:)``), adding `X-Request-Id`; without one, or
/// where it answers nil, in the native API's shape.
public protocol HTTPServer: Sendable {
    /// Starts listening and returns the bound port (useful when `port` is 0).
    func start(
        host: String, port: Int, maxBodyBytes: Int, refusals: HTTPServerRefusals?,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws -> Int

    /// Stops accepting connections, waits for in-flight requests to finish, then releases the listener.
    func shutdown() async
}

/// Renders what an HTTP server refuses before any handler runs (nil: the driver's own answer).
public typealias HTTPServerRefusals = @Sendable (RequestError) -> HTTPResponse?

extension HTTPServer {
    /// Starts listening with the driver's own answers to what it refuses, and returns the bound port.
    public func start(
        host: String, port: Int, maxBodyBytes: Int, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws -> Int {
        try start(host: host, port: port, maxBodyBytes: maxBodyBytes, refusals: nil, handler: handler)
    }
}
