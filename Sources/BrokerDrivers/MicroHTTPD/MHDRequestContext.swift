import BrokerCore
import CMicroHTTPD
import Foundation

/// The state of one HTTP request on a libmicrohttpd connection: MHD's `con_cls`, created on the first call
/// of the access handler and released by the request-completed notification.
///
/// It is also the executor the request's handler task prefers (`Task(executorPreference:)`), so the handler
/// starts on the polling thread that read the request, inside the access handler, with no hand-off
/// (``runHandler(_:_:)``): it runs there until its first real wait (the SQLite writer, libcurl, a hashing pool),
/// and a request answered without one (a refusal, a health check) is answered in the same call. From that wait
/// on, its jobs go to Swift's global executor, so a handler's heavy work after a wait (a signature) runs on any
/// core and never holds the polling thread, which every connection shares.
///
/// `@unchecked Sendable`: `phase`, `body`, `bodyTooLarge`, `admitted` and `requestID` are only touched on
/// libmicrohttpd's polling thread (every callback runs there); `response`, `jobs` and `inline` are guarded by
/// `lock`. The connection pointer is handed to `MHD_resume_connection`, which libmicrohttpd allows from any
/// thread, and to `MHD_suspend_connection` on the polling thread, inside the access handler.
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

    /// Guards `response`, `jobs` and `inline`.
    private let lock = NSLock()
    /// The handler's response, waiting for the polling thread to queue it.
    private var response: HTTPResponse?
    /// The handler task's jobs waiting to run on the polling thread, while ``runHandler(_:_:)`` runs them.
    private var jobs: [UnownedJob] = []
    /// Whether ``runHandler(_:_:)`` is running the handler's jobs on the polling thread: a job enqueued then runs
    /// there; one enqueued later goes to the global executor, and the response resumes the connection.
    private var inline = false

    /// Creates the context of a request on `connection`.
    init(connection: OpaquePointer, tracked: MHDConnection?) {
        self.connection = connection
        self.tracked = tracked
    }

    /// The polling thread, inside the access handler: starts `handler` on `request` and runs it here until it
    /// waits. Returns its response when it finished without waiting; otherwise suspends the connection (under
    /// the lock, so the response cannot resume it first) and returns nil: the response resumes it.
    func runHandler(
        _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse, _ request: HTTPRequest
    ) -> HTTPResponse? {
        lock.withLock { inline = true }
        Task(executorPreference: self) { [self] in
            deliver(await handler(request))
        }
        let executor = asUnownedTaskExecutor()
        while true {
            let next: UnownedJob? = lock.withLock { jobs.isEmpty ? nil : jobs.removeFirst() }
            if let next {
                next.runSynchronously(on: executor)
                continue
            }
            let (answer, done): (HTTPResponse?, Bool) = lock.withLock {
                guard jobs.isEmpty else { return (nil, false) }
                inline = false
                if let response {
                    self.response = nil
                    return (response, true)
                }
                MHD_suspend_connection(connection)
                return (nil, true)
            }
            if done { return answer }
        }
    }

    /// `TaskExecutor`: a job of the handler task runs on the polling thread while ``runHandler(_:_:)`` is running
    /// it, and on a thread of dispatch's global pool after that, still as this executor's job (enqueued to the
    /// global executor, a job runs with no task executor, and the task, which prefers this one, would hop back
    /// here at its next `await`).
    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let here: Bool = lock.withLock {
            if inline { jobs.append(unowned) }
            return inline
        }
        guard !here else { return }
        let executor = asUnownedTaskExecutor()
        DispatchQueue.global().async { unowned.runSynchronously(on: executor) }
    }

    /// Stores the handler's response; resumes the connection when the handler waited (the polling thread
    /// queues it then).
    private func deliver(_ response: HTTPResponse) {
        let resume: Bool = lock.withLock {
            self.response = response
            return !inline
        }
        if resume { MHD_resume_connection(connection) }
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
