public import BrokerCore
public import BrokerModel
import CBrokerShims
import CMicroHTTPD
import Foundation

/// The ``HTTPServer`` port over GNU libmicrohttpd.
///
/// One libmicrohttpd polling thread (epoll) owns the sockets. When a request's body is complete the
/// connection is suspended and the handler runs in its own `Task`; the task stores the response and resumes
/// the connection, and the polling thread queues the response. No thread waits while a handler awaits, so a
/// slow handler never delays a fast one.
///
/// `@unchecked Sendable`: `dispatcher`, `stopping` and `listening` are guarded by `lock`.
public final class MicroHTTPDServer: HTTPServer, @unchecked Sendable {
    /// The connection limits and timeouts (contract section 7).
    public let limits: HTTPServerLimits
    /// Whose connections are exempt from the per-address cap.
    public let trustedProxies: TrustedProxies

    /// Guards `dispatcher`, `stopping` and `listening`.
    private let lock = NSLock()
    /// The running daemon's dispatcher; nil before `start`.
    private var dispatcher: MHDDispatcher?
    /// The shutdown in progress or done, shared by every caller of `shutdown`.
    private var stopping: Task<Void, Never>?
    /// The socket ``listen(host:port:)`` bound and its host, until ``serve(maxBodyBytes:refusals:handler:)`` hands it
    /// to libmicrohttpd.
    private var listening: (host: String, socket: Int32)?

    /// Creates a server; nothing listens until ``start(host:port:maxBodyBytes:refusals:handler:)`` or
    /// ``listen(host:port:)``.
    /// - Parameters:
    ///   - limits: the total and per-address connection caps, the idle timeout and the request deadline.
    ///   - trustedProxies: peers whose connections the per-address cap does not count.
    public init(limits: HTTPServerLimits = .defaults, trustedProxies: TrustedProxies = .none) {
        self.limits = limits
        self.trustedProxies = trustedProxies
    }

    /// Raises this process's soft open-files limit to its hard limit, or to `wanted` when that is higher and
    /// the process may raise its hard limit (root); returns the limit now in force (nil when it cannot be
    /// read). `serve` calls it at start with room for `maxConnections` sockets.
    @discardableResult
    public static func raiseOpenFilesLimit(wanted: Int = 0) -> Int? {
        let limit = broker_raise_open_files_limit(Int64(clamping: max(0, wanted)))
        return limit < 0 ? nil : Int(clamping: limit)
    }

    deinit {
        if let listening { close(listening.socket) }  // bound, never served
        // Never stopped: drain and stop in the background rather than pulling connections from under
        // running handlers.
        if stopping == nil, let dispatcher {
            Task { await dispatcher.shutdown() }
        }
    }

    /// Starts listening on `host` (a numeric IPv4 or IPv6 address, e.g. `127.0.0.1`, `0.0.0.0`, `::1`) and
    /// `port` (0 picks a free port) and returns the bound port: ``listen(host:port:)`` then
    /// ``serve(maxBodyBytes:refusals:handler:)``. Throws ``MicroHTTPDError``.
    public func start(
        host: String, port: Int, maxBodyBytes: Int, refusals: HTTPServerRefusals?,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws -> Int {
        let bound = try listen(host: host, port: port)
        try serve(maxBodyBytes: maxBodyBytes, refusals: refusals, handler: handler)
        return bound
    }

    /// Binds and listens on `host` (a numeric IPv4 or IPv6 address) and `port` (0 picks a free port) and returns
    /// the bound port, answering nobody yet: connections wait in the backlog until
    /// ``serve(maxBodyBytes:refusals:handler:)``. A port another socket holds is ``MicroHTTPDError/Code/addressInUse``.
    public func listen(host: String, port: Int) throws -> Int {
        guard let requestedPort = UInt16(exactly: port) else {
            throw MicroHTTPDError(.startFailed, "port \(port) out of range")
        }
        var boundPort: UInt16 = 0
        var error: Int32 = 0
        let socket = broker_listen_socket(host, requestedPort, &boundPort, &error)
        guard socket >= 0 else { throw MicroHTTPDError.listenFailed(host: host, port: port, socket: socket, error: error) }
        let claimed: Bool = lock.withLock {
            guard listening == nil, dispatcher == nil, stopping == nil else { return false }
            listening = (host, socket)
            return true
        }
        guard claimed else {
            close(socket)
            throw MicroHTTPDError(.alreadyStarted, "a server instance starts once")
        }
        return Int(boundPort)
    }

    /// Starts answering on the socket ``listen(host:port:)`` bound; what the server refuses itself is answered by
    /// `refusals` (the application's dialect) when given. Throws ``MicroHTTPDError``.
    public func serve(
        maxBodyBytes: Int, refusals: HTTPServerRefusals? = nil,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws {
        let connections = MHDConnectionGuard(limits: limits, trustedProxies: trustedProxies)
        let dispatcher = MHDDispatcher(
            maxBodyBytes: max(0, maxBodyBytes), connections: connections, refusals: refusals, handler: handler)
        let listener: (host: String, socket: Int32)? = lock.withLock {
            guard let listening, self.dispatcher == nil, stopping == nil else { return nil }
            self.dispatcher = dispatcher
            self.listening = nil
            return listening
        }
        guard let listener else { throw MicroHTTPDError(.alreadyStarted, "serve needs listen first, once") }
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        // libmicrohttpd holds this reference until `MHDDispatcher.shutdown` gives it back.
        let context = Unmanaged.passRetained(dispatcher).toOpaque()
        var error: Int32 = 0
        let started = broker_mhd_start(
            listener.host, listener.socket, UInt32(flags), UInt32(clamping: limits.idleTimeoutSeconds),
            UInt32(clamping: limits.maxConnections), 0, mhdAcceptPolicy, context,
            mhdAccessHandler, context, mhdRequestCompleted, context, mhdConnectionNotified, context, &error)
        let daemon: OpaquePointer
        do {
            daemon = try mhdCheckStart(started, error: error, host: listener.host)
        } catch {
            close(listener.socket)
            Unmanaged<MHDDispatcher>.fromOpaque(context).release()
            lock.withLock { self.dispatcher = nil }
            throw error
        }
        dispatcher.attach(daemon)
        connections.start()
    }

    /// Stops accepting connections (new attempts are refused at once), waits until every request already
    /// handed to the handler has been answered and its response sent, then closes the remaining idle
    /// connections and stops libmicrohttpd's thread. Requests that arrive on open keep-alive connections
    /// meanwhile are still served, with `Connection: close`. Safe to call more than once.
    public func shutdown() async {
        let task: Task<Void, Never>? = lock.withLock {
            if let listening {  // bound, never served: stop listening
                close(listening.socket)
                self.listening = nil
            }
            if let stopping { return stopping }
            guard let dispatcher else { return nil }
            let task = Task { await dispatcher.shutdown() }
            stopping = task
            return task
        }
        await task?.value
    }

    /// TCP connections accepted since ``start(host:port:maxBodyBytes:refusals:handler:)`` (useful to observe
    /// keep-alive).
    public var acceptedConnectionCount: Int {
        lock.withLock { dispatcher }?.acceptedConnections ?? 0
    }

    /// Open connections from `address` that count against its cap (trusted proxies' never do).
    public func openConnectionCount(from address: String) -> Int {
        lock.withLock { dispatcher }?.connections.connectionCount(from: address) ?? 0
    }

    /// Connections shut down so far because their request missed the deadline.
    public var expiredConnectionCount: Int {
        lock.withLock { dispatcher }?.connections.expiredConnections ?? 0
    }
}
