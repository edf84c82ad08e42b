import BrokerCore
import BrokerModel
import Foundation

/// The state of one HTTP request on a libmicrohttpd connection: MHD's `con_cls`, created on the first call
/// of the access handler and released by the request-completed notification.
///
/// `@unchecked Sendable`: `phase`, `body`, `bodyTooLarge`, `admitted` and `requestID` are only touched on
/// libmicrohttpd's polling thread (every callback runs there); `response` is written by the handler task and
/// read by the polling thread, both under `lock`. The connection pointer is only handed to `MHD_resume_connection`,
/// which libmicrohttpd allows from any thread.
final class MHDRequestContext: @unchecked Sendable {
    /// Where the request is in its life.
    enum Phase {
        /// The body is being uploaded.
        case receiving
        /// The connection is suspended while the Swift handler runs.
        case handling
        /// A response has been queued; nothing more to do.
        case answered
    }

    /// The libmicrohttpd connection (`struct MHD_Connection *`).
    let connection: OpaquePointer
    /// The connection as the connection guard tracks it (nil if libmicrohttpd gave no socket context).
    let tracked: MHDConnection?
    /// The request's id for the driver's own answers; polling thread only.
    var requestID = ""
    /// Polling thread only.
    var phase = Phase.receiving
    /// The request's header fields in arrival order, read once when the headers are in; polling thread only.
    var headerFields: [(name: String, value: String)] = []
    /// The upload so far; polling thread only.
    var body: [UInt8] = []
    /// Set once the upload passed the limit: the rest is discarded and a 413 answers; polling thread only.
    var bodyTooLarge = false
    /// Whether the dispatcher counted this request as in flight; polling thread only.
    var admitted = false

    /// Guards `response`.
    private let lock = NSLock()
    /// The handler's response, waiting for the polling thread to queue it.
    private var response: HTTPResponse?

    /// Creates the context of a request on `connection`.
    init(connection: OpaquePointer, tracked: MHDConnection?) {
        self.connection = connection
        self.tracked = tracked
    }

    /// Stores the handler's response (called by the handler task before it resumes the connection).
    func deliver(_ response: HTTPResponse) {
        lock.lock()
        self.response = response
        lock.unlock()
    }

    /// Takes the handler's response, if it has arrived.
    func takeResponse() -> HTTPResponse? {
        lock.lock()
        defer { lock.unlock() }
        let taken = response
        response = nil
        return taken
    }
}
