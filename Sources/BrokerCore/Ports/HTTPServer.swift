/// The port behind which an HTTP server driver (libmicrohttpd) serves the broker's handler.
///
/// A driver calls `handler` for every complete request, without blocking a thread while the handler
/// awaits, and refuses bodies over `maxBodyBytes` with 413 before the handler runs.
public protocol HTTPServer: Sendable {
    /// Starts listening and returns the bound port (useful when `port` is 0).
    func start(
        host: String, port: Int, maxBodyBytes: Int,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws -> Int

    /// Stops accepting connections, waits for in-flight requests to finish, then releases the listener.
    func shutdown() async
}
