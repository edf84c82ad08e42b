public import BrokerModel
import CBrokerShims
import BrokerCore
import CMicroHTTPD
import Foundation

/// Why the libmicrohttpd server driver could not do what it was asked.
public struct MicroHTTPDError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// The host is not a numeric IPv4 or IPv6 address.
        case badHost
        /// The listening socket could not be made or bound (no permission, no resources), or libmicrohttpd
        /// could not start.
        case startFailed
        /// Another socket holds the address and port (EADDRINUSE): another process, or another broker, listens
        /// there.
        case addressInUse
        /// `start` was called on a server that is already running or has been shut down.
        case alreadyStarted
        /// A libmicrohttpd call answered `.NO`.
        case callFailed
    }

    /// The kind of failure.
    public var code: Code
    /// What was being attempted, for logs.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

}

/// The one funnel every libmicrohttpd result code passes through: `.YES` returns, anything else throws.
@inline(__always)
func mhdCheck(_ result: MHD_Result, _ operation: @autoclosure () -> String) throws(MicroHTTPDError) {
    guard result == .YES else { throw MicroHTTPDError(.callFailed, operation()) }
}

/// The funnel for `broker_mhd_start`'s error out-parameter.
func mhdCheckStart(_ daemon: OpaquePointer?, error: Int32, host: String) throws(MicroHTTPDError) -> OpaquePointer {
    if let daemon, error == Int32(BROKER_MHD_START_OK.rawValue) { return daemon }
    if error == Int32(BROKER_MHD_START_BAD_HOST.rawValue) {
        throw MicroHTTPDError(.badHost, "'\(host)' is not a numeric IPv4 or IPv6 address")
    }
    throw MicroHTTPDError(.startFailed, "MHD_start_daemon on \(host) failed")
}

extension MicroHTTPDError {
    /// The error for `broker_listen_socket`'s result `socket` (-1: `error` is a broker_mhd_start_error; -2: an
    /// errno), naming the address and, for a port in use, how to find who holds it.
    static func listenFailed(host: String, port: Int, socket: Int32, error: Int32) -> MicroHTTPDError {
        if socket == -1 { return MicroHTTPDError(.badHost, "'\(host)' is not a numeric IPv4 or IPv6 address") }
        let address = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        if error == EADDRINUSE {
            return MicroHTTPDError(
                .addressInUse,
                "cannot listen on \(address): address already in use (another process listens on port \(port); "
                    + "`ss -ltnp 'sport = :\(port)'` shows which)")
        }
        return MicroHTTPDError(.startFailed, "cannot listen on \(address): \(String(cString: strerror(error)))")
    }
}

extension MicroHTTPDError {
    /// None: an internal failure (``CodedError``). A server that could not start or answer.
    public var refusal: Refusal? { nil }
}
