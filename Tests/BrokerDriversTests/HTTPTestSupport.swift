import BrokerCore
import BrokerDrivers
import BrokerModel
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A MicroHTTPDServer on 127.0.0.1 port 0 and a CurlHTTPClient talking to it.
struct HTTPHarness {
    /// The server under test.
    let server: MicroHTTPDServer
    /// The client under test.
    let client: CurlHTTPClient
    /// The bound port.
    let port: Int

    /// Starts both.
    static func start(
        maxBodyBytes: Int = 64 * 1024, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws -> HTTPHarness {
        let server = MicroHTTPDServer()
        let port = try server.start(host: "127.0.0.1", port: 0, maxBodyBytes: maxBodyBytes, handler: handler)
        return HTTPHarness(server: server, client: try CurlHTTPClient(), port: port)
    }

    /// `http://127.0.0.1:<port><pathAndQuery>`.
    func url(_ pathAndQuery: String) -> String { "http://127.0.0.1:\(port)\(pathAndQuery)" }

    /// Sends a request through the client.
    func send(
        _ method: String = "GET", _ pathAndQuery: String, headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], timeout: TimeInterval = 10
    ) async throws -> HTTPClientResponse {
        try await client.send(
            HTTPClientRequest(method: method, url: url(pathAndQuery), headers: headers, body: body, timeout: timeout))
    }

    /// Shuts both down.
    func stop() async {
        await client.shutdown()
        await server.shutdown()
    }
}

/// What handlers saw and did, in order.
actor HTTPEventLog {
    /// Requests the handler received.
    private(set) var requests: [HTTPRequest] = []
    /// Free-form events, in the order they happened.
    private(set) var events: [String] = []

    /// Records a request.
    func record(_ request: HTTPRequest) { requests.append(request) }
    /// Records an event.
    func note(_ event: String) { events.append(event) }

    /// Waits (polling, bounded by `limit` seconds) until `condition` holds on the recorded requests.
    func waitUntil(limit: TimeInterval = 20, _ condition: @Sendable ([HTTPRequest]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while !condition(requests) {
            if Date() > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// A gate slow handlers wait on until the test opens it.
actor HTTPGate {
    /// Whether the gate is open.
    private var isOpen = false
    /// Handlers waiting.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Waits until the gate opens.
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Opens the gate for everyone, now and later.
    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// A 200 with a text body.
func textResponse(_ text: String, status: Int = 200) -> HTTPResponse {
    HTTPResponse(status: status, headers: [(name: "Content-Type", value: "text/plain")], body: Array(text.utf8))
}

/// A TCP port on 127.0.0.1 that is bound but not listening, so connecting to it is refused; the socket is
/// closed when `body` returns.
func withRefusingPort<T>(_ body: (Int) async throws -> T) async throws -> T {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    try #require(bound == 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    try #require(named == 0)
    return try await body(Int(UInt16(bigEndian: address.sin_port)))
}
