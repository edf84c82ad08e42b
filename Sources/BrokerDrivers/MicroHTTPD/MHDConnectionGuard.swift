import BrokerCore
import Foundation

/// One TCP connection as ``MHDConnectionGuard`` tracks it: libmicrohttpd's socket context, created by the
/// connection-started notification and released by the connection-closed one.
///
/// `@unchecked Sendable`: `address`, `exempt` and `fd` never change; `deadline` is guarded by the guard's lock.
final class MHDConnection: @unchecked Sendable {
    /// The peer's address (`MHD_CONNECTION_INFO_CLIENT_ADDRESS`), empty when libmicrohttpd could not tell.
    let address: String
    /// Whether the peer is a trusted proxy, whose connections the per-address cap does not count.
    let exempt: Bool
    /// The socket, which the deadline timer shuts down; -1 when unknown.
    let fd: Int32
    /// When the request being received must be complete; nil while a handler runs or a response is sent.
    /// Guarded by ``MHDConnectionGuard``'s lock.
    fileprivate var deadline: ContinuousClock.Instant?

    fileprivate init(address: String, exempt: Bool, fd: Int32, deadline: ContinuousClock.Instant) {
        self.address = address
        self.exempt = exempt
        self.fd = fd
        self.deadline = deadline
    }
}

/// The limits libmicrohttpd 0.9.75 lacks or cannot apply as the contract wants (section 7):
///
/// - a per-address connection cap that exempts trusted proxies (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`
///   cannot): the accept policy refuses a peer already holding `maxConnectionsPerAddress` connections;
/// - a deadline for a complete request (libmicrohttpd's timeout restarts on every byte, so a trickle never
///   trips it): a timer thread shuts down the socket of any connection whose request has not fully arrived
///   `requestDeadlineSeconds` after the connection opened or its previous response was sent.
///
/// The accept policy and the connection notifications run on libmicrohttpd's one polling thread, so the
/// check in ``admits(address:)`` and the count in ``opened(address:fd:)`` cannot interleave with another
/// accept. libmicrohttpd sends the connection-closed notification before it closes the socket, and
/// ``closed(_:)`` takes the lock the timer holds while it shuts sockets down, so the timer never touches a
/// socket number that has been closed (and perhaps reused).
///
/// `@unchecked Sendable`: every mutable member is guarded by `lock`, except `stopping`, guarded by `timer`.
final class MHDConnectionGuard: @unchecked Sendable {
    /// The limits in force.
    let limits: HTTPServerLimits
    /// Whose connections are exempt from the per-address cap.
    let trustedProxies: TrustedProxies

    /// Guards the tables below.
    private let lock = NSLock()
    /// Open connections by peer address (trusted proxies' not counted).
    private var perAddress: [String: Int] = [:]
    /// Every open connection.
    private var open: [ObjectIdentifier: MHDConnection] = [:]
    /// Connections shut down for missing their deadline.
    private var expiredCount = 0

    /// The timer thread's sleep, and `stopping`.
    private let timer = NSCondition()
    /// Set by ``stop()``.
    private var stopping = false

    /// Creates the guard; the timer starts with ``start()``.
    init(limits: HTTPServerLimits, trustedProxies: TrustedProxies) {
        self.limits = limits
        self.trustedProxies = trustedProxies
    }

    /// The accept policy: whether a new connection from `address` is under its address's cap.
    func admits(address: String) -> Bool {
        if trustedProxies.contains(address: address) { return true }
        return lock.withLock { perAddress[address, default: 0] < limits.maxConnectionsPerAddress }
    }

    /// Tracks a connection libmicrohttpd has set up; its first request's deadline starts now.
    func opened(address: String, fd: Int32) -> MHDConnection {
        let connection = MHDConnection(
            address: address, exempt: trustedProxies.contains(address: address), fd: fd,
            deadline: .now + .seconds(limits.requestDeadlineSeconds))
        lock.withLock {
            open[ObjectIdentifier(connection)] = connection
            if !connection.exempt { perAddress[address, default: 0] += 1 }
        }
        return connection
    }

    /// Forgets a connection libmicrohttpd is about to close.
    func closed(_ connection: MHDConnection) {
        lock.withLock {
            guard open.removeValue(forKey: ObjectIdentifier(connection)) != nil, !connection.exempt else { return }
            let remaining = perAddress[connection.address, default: 1] - 1
            perAddress[connection.address] = remaining > 0 ? remaining : nil
        }
    }

    /// The request has fully arrived (or been answered early): no deadline while it is handled and answered.
    func requestArrived(on connection: MHDConnection) {
        lock.withLock { connection.deadline = nil }
    }

    /// The response has been sent: the next request on the connection has until a new deadline.
    func responseSent(on connection: MHDConnection) {
        lock.withLock { connection.deadline = .now + .seconds(limits.requestDeadlineSeconds) }
    }

    /// Open connections from `address` that count against its cap.
    func connectionCount(from address: String) -> Int {
        lock.withLock { perAddress[address, default: 0] }
    }

    /// Connections shut down so far for missing their deadline.
    var expiredConnections: Int {
        lock.withLock { expiredCount }
    }

    /// Shuts down the socket of every connection past its deadline (libmicrohttpd then sees the end of the
    /// stream and closes it); returns how many.
    @discardableResult
    func expireOverdue(now: ContinuousClock.Instant = .now) -> Int {
        lock.withLock {
            var expired = 0
            for connection in open.values {
                guard let deadline = connection.deadline, deadline <= now else { continue }
                connection.deadline = nil
                if connection.fd >= 0 { _ = shutdown(connection.fd, Int32(SHUT_RDWR)) }
                expired += 1
            }
            expiredCount += expired
            return expired
        }
    }

    /// Starts the deadline timer (a thread that wakes every quarter of a second). Call once.
    func start() {
        let thread = Thread { [self] in
            while true {
                let stop: Bool = timer.withLock {
                    if !stopping { _ = timer.wait(until: Date(timeIntervalSinceNow: 0.25)) }
                    return stopping
                }
                if stop { break }
                expireOverdue()
            }
        }
        thread.name = "broker-mhd-deadlines"
        thread.start()
    }

    /// Stops the timer thread (it exits within a moment).
    func stop() {
        timer.withLock {
            stopping = true
            timer.broadcast()
        }
    }
}
