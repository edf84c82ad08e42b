import BrokerCore
import CMicroHTTPD
import Foundation

/// The state of one HTTP request on a libmicrohttpd connection: MHD's `con_cls`, created on the first call
/// of the access handler and released by the request-completed notification.
///
/// It is also the executor the request's handler task prefers (`Task(executorPreference:)`): the task's jobs
/// run on the libmicrohttpd thread that owns the connection, inside the access handler, so a request is read,
/// handled and answered on one thread and hops only for real waits (the SQLite writer, libcurl, a hashing
/// pool). A job enqueued while the connection is suspended (a wait has ended on another thread) resumes the
/// connection, and libmicrohttpd's next call of the access handler runs it (``runJobs()``).
///
/// `@unchecked Sendable`: `phase`, `headerFields`, `body`, `bodyTooLarge`, `admitted` and `requestID` are only touched on
/// the connection's libmicrohttpd thread (every callback for a connection runs there); `response`, `jobs`,
/// `parked` and `finished` are guarded by `lock`. The connection pointer is handed to `MHD_resume_connection`,
/// which libmicrohttpd allows from any thread, and to `MHD_suspend_connection` on the connection's thread.
final class MHDRequestContext: TaskExecutor, @unchecked Sendable {
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

    /// Guards `response`, `jobs`, `parked` and `finished`.
    private let lock = NSLock()
    /// The handler's response, waiting for the polling thread to queue it.
    private var response: HTTPResponse?
    /// The handler task's jobs waiting for the connection's thread.
    private var jobs: [UnownedJob] = []
    /// Whether the connection is suspended waiting for a job or the response: the next job resumes it.
    private var parked = false
    /// Whether the response has been taken: a job enqueued after that (none is expected) runs on the global
    /// executor, never on a connection that may be gone.
    private var finished = false

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

    /// `TaskExecutor`: queues a job of the handler task for the connection's thread, resuming the connection if
    /// it is parked. Called on that thread while the handler runs there, and on the thread that ends a wait.
    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let (resume, late): (Bool, Bool) = lock.withLock {
            if finished { return (false, true) }
            jobs.append(unowned)
            defer { parked = false }
            return (parked, false)
        }
        if late {
            globalConcurrentExecutor.enqueue(unowned)
        } else if resume {
            MHD_resume_connection(connection)
        }
    }

    /// The connection's thread, inside the access handler: runs the handler task's jobs until none is left.
    /// Returns the response once the handler has delivered it; otherwise parks the connection (suspends it
    /// until the next job arrives) and returns nil.
    func runJobs() -> HTTPResponse? {
        let executor = asUnownedTaskExecutor()
        while true {
            let next: UnownedJob? = lock.withLock { jobs.isEmpty ? nil : jobs.removeFirst() }
            if let next {
                next.runSynchronously(on: executor)
                continue
            }
            // Suspending under the lock: a job enqueued meanwhile resumes the connection only after this.
            let (answer, parkedNow): (HTTPResponse?, Bool) = lock.withLock {
                if let response {
                    self.response = nil
                    finished = true
                    return (response, false)
                }
                guard jobs.isEmpty else { return (nil, false) }
                parked = true
                MHD_suspend_connection(connection)
                return (nil, true)
            }
            if let answer { return answer }
            if parkedNow { return nil }
        }
    }
}
