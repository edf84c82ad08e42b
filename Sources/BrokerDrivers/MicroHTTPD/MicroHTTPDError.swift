import CBrokerShims
public import BrokerCore
import CMicroHTTPD

/// Why the libmicrohttpd server driver could not do what it was asked.
public struct MicroHTTPDError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// The host is not a numeric IPv4 or IPv6 address.
        case badHost
        /// libmicrohttpd could not start listening (port in use, no permission, no resources).
        case startFailed
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
func mhdCheckStart(_ daemon: OpaquePointer?, error: Int32, host: String, port: Int) throws(MicroHTTPDError)
    -> OpaquePointer
{
    if let daemon, error == Int32(BROKER_MHD_START_OK.rawValue) { return daemon }
    if error == Int32(BROKER_MHD_START_BAD_HOST.rawValue) {
        throw MicroHTTPDError(.badHost, "'\(host)' is not a numeric IPv4 or IPv6 address")
    }
    throw MicroHTTPDError(.startFailed, "MHD_start_daemon on \(host) port \(port) failed")
}
