import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection over plain sockets, for tests that must send what an HTTP client never would
/// (ambiguous framing, a trickle of header lines) or connect from a chosen loopback address.
///
/// Not thread-safe: one task uses it at a time. The waiting reads are `async` and wait on a thread of their own,
/// never on Swift's cooperative pool (a test blocking the pool could starve an in-process server's handlers).
public final class RawSocket: @unchecked Sendable {
    /// Why a socket call failed.
    public struct Failure: Error, CustomStringConvertible {
        /// The call.
        public var operation: String
        /// `errno`.
        public var code: Int32
        /// `operation: strerror`.
        public var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    /// The socket; -1 once closed.
    public private(set) var fd: Int32

    /// Connects to `host:port` (IPv4), from `source` (e.g. `127.0.0.2`) when given. Blocking.
    public init(host: String = "127.0.0.1", port: Int, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(operation: "socket", code: errno) }
        if let source {
            var local = RawSocket.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw Failure(operation: "bind \(source)", code: code)
            }
        }
        var remote = RawSocket.address(host, port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(operation: "connect \(host):\(port)", code: code)
        }
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Closes the socket.
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sends all of `text`; false when the peer has closed or reset the connection (never SIGPIPE).
    @discardableResult
    public func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    /// Sends all of `bytes`; false when the peer has closed or reset the connection (never SIGPIPE).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// What one `read` returned.
    public enum ReadResult: Equatable, Sendable {
        /// Some bytes.
        case bytes([UInt8])
        /// The peer closed (end of stream) or reset the connection.
        case closed
        /// Nothing arrived within the wait.
        case timedOut
    }

    /// Waits up to `seconds` for bytes, the end of the stream, or a reset, on a thread of its own.
    public func next(waiting seconds: Double) async -> ReadResult {
        await RawSocket.offThePool { self.read(waiting: seconds) }
    }

    /// Waits up to `seconds` for bytes, the end of the stream, or a reset, blocking the calling thread: from
    /// async code, pass 0 (a look at what is there) or use ``next(waiting:)``.
    public func read(waiting seconds: Double) -> ReadResult {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, seconds * 1000)))
        guard ready > 0 else { return .timedOut }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return .closed }
        return .bytes(Array(buffer[..<count]))
    }

    /// Reads until the peer closes the connection or `seconds` pass: everything received, and whether the
    /// connection was closed (false: still open at the end of the wait).
    public func readUntilClosed(seconds: Double) async -> (bytes: [UInt8], closed: Bool) {
        await RawSocket.offThePool { self.blockingReadUntilClosed(seconds: seconds) }
    }

    private func blockingReadUntilClosed(seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        let deadline = Date() + seconds
        var received: [UInt8] = []
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return (received, false) }
            switch read(waiting: left) {
            case .bytes(let bytes): received += bytes
            case .closed: return (received, true)
            case .timedOut: return (received, false)
            }
        }
    }

    /// Reads until `received` holds one complete response head plus `Content-Length` body bytes, the
    /// connection closes, or `seconds` pass; returns what arrived.
    public func readResponse(seconds: Double) async -> [UInt8] {
        await RawSocket.offThePool { self.blockingReadResponse(seconds: seconds) }
    }

    private func blockingReadResponse(seconds: Double) -> [UInt8] {
        let deadline = Date() + seconds
        var received: [UInt8] = []
        while !RawSocket.holdsCompleteResponse(received) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, case .bytes(let bytes) = read(waiting: left) else { break }
            received += bytes
        }
        return received
    }

    /// The status of every HTTP status line (`HTTP/1.1 NNN `) in `bytes`, in order: one per response sent
    /// (a body containing such text would count too; tests control their bodies).
    public static func statusLines(in bytes: [UInt8]) -> [Int] {
        let text = String(decoding: bytes, as: UTF8.self)
        var statuses: [Int] = []
        var rest = text[...]
        while let found = rest.range(of: "HTTP/1.") {
            let after = rest[found.upperBound...]
            if after.count >= 6, after.dropFirst().first == " ", let status = Int(after.dropFirst(2).prefix(3)) {
                statuses.append(status)
            }
            rest = after
        }
        return statuses
    }

    /// The value of header `name` in the first response in `bytes`.
    public static func header(_ name: String, in bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Whether `bytes` starts with a whole response (head and `Content-Length` body).
    private static func holdsCompleteResponse(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let length = header("Content-Length", in: bytes).flatMap { Int($0) } ?? 0
        return text.utf8.distance(from: end.upperBound, to: text.utf8.endIndex) >= length
    }

    /// Runs `work` on a new thread and returns its result: for blocking socket work (connecting many
    /// sockets, a round of sends) that must not hold one of Swift's cooperative threads.
    public static func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    /// A `sockaddr_in` for a numeric IPv4 address.
    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(clamping: port).bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }
}
