import BrokerCore
import BrokerModel
import CBrokerShims
import CMicroHTTPD
import Foundation

/// What libmicrohttpd's callbacks see as their closure (`cls`): the handler, the body limit, and the count of
/// requests whose handler task is running or whose response is still being sent.
///
/// libmicrohttpd holds a retained reference (taken in ``MicroHTTPDServer/start``, given back after
/// `MHD_stop_daemon`), so the pointer the callbacks receive stays valid for the daemon's whole life.
///
/// `@unchecked Sendable`: the mutable state (`daemon`, `inFlight`, `closing`, `closed`, `drainWaiters`) is
/// guarded by `lock`; `connectionCount` is guarded by `lock` too.
final class MHDDispatcher: @unchecked Sendable {
    /// The broker's handler.
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    /// The largest accepted request body.
    let maxBodyBytes: Int
    /// The per-address cap and the request deadlines.
    let connections: MHDConnectionGuard
    /// The application's answers to what the server refuses itself, if it gave them.
    let refusals: HTTPServerRefusals?

    /// Guards everything below.
    private let lock = NSLock()
    /// The daemon (`struct MHD_Daemon *`), until it is stopped.
    private var daemon: OpaquePointer?
    /// Requests admitted to the handler whose response has not been completely sent yet.
    private var inFlight = 0
    /// Shutdown has begun: answered requests close their connection.
    private var closing = false
    /// Shutdown has drained: no request is admitted any more.
    private var closed = false
    /// Shutdown waiting for `inFlight` to reach zero.
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    /// TCP connections accepted so far.
    private var connectionCount = 0

    /// Creates the dispatcher for one daemon.
    init(
        maxBodyBytes: Int, connections: MHDConnectionGuard, refusals: HTTPServerRefusals?,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.connections = connections
        self.refusals = refusals
        self.handler = handler
    }

    /// Records the started daemon.
    func attach(_ daemon: OpaquePointer) {
        lock.withLock { self.daemon = daemon }
    }

    /// TCP connections accepted so far.
    var acceptedConnections: Int {
        lock.withLock { connectionCount }
    }

    /// Counts an accepted connection (polling thread).
    func connectionStarted() {
        lock.withLock { connectionCount += 1 }
    }

    /// Whether shutdown has begun, so a response should close its connection.
    var isClosing: Bool {
        lock.withLock { closing }
    }

    /// Counts a request in flight, unless shutdown has already drained.
    func admit() -> Bool {
        lock.withLock {
            if closed { return false }
            inFlight += 1
            return true
        }
    }

    /// Uncounts a request whose response is sent (or whose connection died).
    func release() {
        let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
            inFlight -= 1
            guard inFlight == 0, closing else { return [] }
            closed = true
            defer { drainWaiters = [] }
            return drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stops accepting, waits until every admitted request has been answered, stops the daemon and gives back
    /// the reference libmicrohttpd held. Call once.
    func shutdown() async {
        guard let daemon = lock.withLock({ () -> OpaquePointer? in
            closing = true
            return self.daemon
        }) else { return }
        // Stop accepting: libmicrohttpd hands the listening socket back, and closing it makes new connection
        // attempts fail at once instead of waiting in the backlog.
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            let alreadyDrained: Bool = lock.withLock {
                if inFlight == 0 {
                    closed = true
                    return true
                }
                drainWaiters.append(drained)
                return false
            }
            if alreadyDrained { drained.resume() }
        }
        // Only idle keep-alive connections remain; stopping closes them and joins the polling thread.
        MHD_stop_daemon(daemon)
        connections.stop()
        lock.withLock { self.daemon = nil }
        Unmanaged.passUnretained(self).release()
    }
}
