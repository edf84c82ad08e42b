import BrokerCore
import BrokerModel
import CBrokerShims
import CCurl
import Foundation

/// libcurl's multi interface on one dedicated thread (never the cooperative pool), driven by
/// `curl_multi_socket_action`: libcurl names the sockets to watch (``curlSocketCallback``) and when its next
/// timeout falls due (``curlTimerCallback``); the thread keeps exactly those sockets, and a wake-up pipe, in
/// an epoll set, and hands libcurl only the sockets that are ready, so a response costs work on its own
/// transfer, not a pass over every transfer in flight (`curl_multi_perform` and `poll`'s way, which
/// dominated with 200 slow calls open).
/// Callers hand transfers over through a locked queue, and a byte on the pipe when the thread sleeps; the
/// thread resumes each finished transfer's continuation. The multi handle keeps the connection cache, so
/// connections are reused.
///
/// `@unchecked Sendable`: `pending`, `cancellations`, `stopRequested`, `exited`, `exitWaiters` and `sleeping`
/// are guarded by `lock`; `active`, `timerDeadline`, the epoll set and every multi call belong to the transfer
/// thread (libcurl's callbacks run inside those calls). The multi handle, the pipe and the epoll instance are
/// closed in `deinit`, which can only run after the thread (which holds a reference) has returned.
final class CurlMultiLoop: @unchecked Sendable {
    /// The multi handle (`CURLM *`).
    private let multi: UnsafeMutableRawPointer
    /// The wake-up pipe: a byte written to `wakeWrite` interrupts the thread's `poll`.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// The epoll instance watching the wake-up pipe and libcurl's sockets.
    private let epoll: Int32

    /// Guards everything down to `exitWaiters`.
    private let lock = NSLock()
    /// Transfers submitted but not yet added to the multi handle.
    private var pending: [CurlTransfer] = []
    /// Transfers whose caller was cancelled.
    private var cancellations: [CurlTransfer] = []
    /// Set by `requestStop`.
    private var stopRequested = false
    /// Set when the thread has returned.
    private var exited = false
    /// Callers of `waitUntilStopped`.
    private var exitWaiters: [CheckedContinuation<Void, Never>] = []
    /// Whether the thread is (about to be) asleep in `epoll_wait`: only then does a hand-over write to the
    /// pipe. While it is awake it takes new work on its next pass anyway, so with many transfers in flight
    /// most hand-overs cost no system call and no wake-up.
    private var sleeping = false

    /// Transfers inside the multi handle, by easy handle; transfer thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// libcurl's sockets in the epoll set (as far as this thread knows); transfer thread only.
    private var watched: Set<Int32> = []
    /// When libcurl wants `CURL_SOCKET_TIMEOUT` (uptime nanoseconds), if it does; transfer thread only.
    private var timerDeadline: UInt64?
    /// What one epoll wait reports: sockets, and what each is ready for; transfer thread only.
    private var readySockets = [Int32](repeating: 0, count: 64)
    private var readiness = [Int32](repeating: 0, count: 64)

    /// Creates the multi handle, keeping at most `maxConnections` idle connections cached.
    init(maxConnections: Int) throws(HTTPClientError) {
        try curlCheck(curlGlobalInitialization, "curl_global_init")
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw HTTPClientError(.transport, "pipe failed") }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        epoll = broker_epoll_create()
        guard epoll >= 0, broker_epoll_watch(epoll, wakeRead, Int32(BROKER_EPOLL_IN.rawValue), 0) == 0,
            let multi = curl_multi_init()
        else {
            for fd in [wakeRead, wakeWrite, epoll] where fd >= 0 { close(fd) }
            throw HTTPClientError(.transport, "cannot set up the transfer loop (epoll, curl_multi_init)")
        }
        self.multi = multi
        let me = Unmanaged.passUnretained(self).toOpaque()
        try curlCheck(broker_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, maxConnections)), "CURLMOPT_MAXCONNECTS")
        try curlCheck(broker_curl_multi_setopt_socket_callback(multi, curlSocketCallback), "CURLMOPT_SOCKETFUNCTION")
        try curlCheck(broker_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me), "CURLMOPT_SOCKETDATA")
        try curlCheck(broker_curl_multi_setopt_timer_callback(multi, curlTimerCallback), "CURLMOPT_TIMERFUNCTION")
        try curlCheck(broker_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me), "CURLMOPT_TIMERDATA")
    }

    deinit {
        // The callbacks point at this object, which is going: libcurl must not call them while cleaning up.
        _ = broker_curl_multi_setopt_socket_callback(multi, nil)
        _ = broker_curl_multi_setopt_timer_callback(multi, nil)
        curl_multi_cleanup(multi)
        close(wakeRead)
        close(wakeWrite)
        close(epoll)
    }

    /// Starts the transfer thread.
    func startThread() {
        let thread = Thread { [self] in run() }
        thread.name = "broker-curl-multi"
        thread.start()
    }

    /// Hands `transfer` to the thread. Throws `CancellationError` if the caller was already cancelled, and
    /// `.transport` once the client is shut down.
    func submit(_ transfer: CurlTransfer) throws {
        try lock.withLock {
            if transfer.cancelRequested { throw CancellationError() }
            if stopRequested { throw HTTPClientError(.transport, "the HTTP client is shut down") }
            pending.append(transfer)
        }
        wakeUpIfSleeping()
    }

    /// Asks the thread to abandon `transfer`; its caller gets `CancellationError`.
    func cancel(_ transfer: CurlTransfer) {
        lock.withLock {
            transfer.cancelRequested = true
            cancellations.append(transfer)
        }
        wakeUpIfSleeping()
    }

    /// Asks the thread to fail every transfer and return.
    func requestStop() {
        lock.withLock { stopRequested = true }
        wakeUp()
    }

    /// Returns once the thread has returned.
    func waitUntilStopped() async {
        await withCheckedContinuation { (stopped: CheckedContinuation<Void, Never>) in
            let done: Bool = lock.withLock {
                if exited { return true }
                exitWaiters.append(stopped)
                return false
            }
            if done { stopped.resume() }
        }
    }

    /// Interrupts the thread's wait, if it is waiting (see `sleeping`).
    private func wakeUpIfSleeping() {
        let asleep: Bool = lock.withLock {
            defer { sleeping = false }
            return sleeping
        }
        if asleep { wakeUp() }
    }

    /// Interrupts the thread's wait.
    private func wakeUp() {
        // A full pipe already holds a wake-up; a failed write only delays the thread until its poll timeout.
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// `CURLMOPT_SOCKETFUNCTION`'s work: watch `socket` for what libcurl asks, or stop watching it.
    fileprivate func watch(_ socket: Int32, _ what: Int32) {
        let interest: Int32 =
            switch what {
            case CURL_POLL_IN: Int32(BROKER_EPOLL_IN.rawValue)
            case CURL_POLL_OUT: Int32(BROKER_EPOLL_OUT.rawValue)
            case CURL_POLL_INOUT: Int32(BROKER_EPOLL_IN.rawValue | BROKER_EPOLL_OUT.rawValue)
            default: 0  // CURL_POLL_REMOVE
            }
        // A socket closed already has left the set by itself: a failed forget needs nothing more.
        if interest == 0 {
            _ = broker_epoll_forget(epoll, socket)
            watched.remove(socket)
        } else {
            _ = broker_epoll_watch(epoll, socket, interest, watched.contains(socket) ? 1 : 0)
            watched.insert(socket)
        }
    }

    /// `CURLMOPT_TIMERFUNCTION`'s work: libcurl wants `CURL_SOCKET_TIMEOUT` in `milliseconds` (-1: never).
    fileprivate func setTimer(milliseconds: Int) {
        timerDeadline = milliseconds < 0 ? nil : DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    }

    /// The thread's body.
    private func run() {
        while true {
            let (arrived, cancelled, stopping) = lock.withLock {
                defer {
                    pending = []
                    cancellations = []
                }
                return (pending, cancellations, stopRequested)
            }
            for transfer in arrived {
                do {
                    // Adding sets libcurl's timer to now: the timeout action below starts the transfer.
                    try curlCheck(curl_multi_add_handle(multi, transfer.easy), "curl_multi_add_handle")
                    active[transfer.easy] = transfer
                } catch {
                    transfer.fail(error)
                }
            }
            for transfer in cancelled where active[transfer.easy] === transfer {
                finish(transfer, failing: CancellationError())
            }
            if stopping {
                for transfer in active.values {
                    finish(transfer, failing: HTTPClientError(.transport, "the HTTP client is shut down"))
                }
                break
            }
            if let deadline = timerDeadline, DispatchTime.now().uptimeNanoseconds >= deadline {
                timerDeadline = nil
                var running: Int32 = 0
                act(broker_curl_multi_socket_timeout(multi, &running))
            }
            collectFinished()
            waitAndAct()
            collectFinished()
        }
        let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
            exited = true
            defer { exitWaiters = [] }
            return exitWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Sleeps until a watched socket is ready, libcurl's timer is due, a wake-up, or one second; then hands
    /// libcurl each ready socket.
    private func waitAndAct() {
        var timeout: Int32 = 1000
        if let deadline = timerDeadline {
            let now = DispatchTime.now().uptimeNanoseconds
            timeout = deadline <= now ? 0 : Int32(min(1000, (deadline - now + 999_999) / 1_000_000))
        }
        // Work handed over since the pass began means no sleep; otherwise hand-overs from now on wake us.
        let idle: Bool = lock.withLock {
            let idle = pending.isEmpty && cancellations.isEmpty && !stopRequested
            sleeping = idle && timeout != 0
            return idle
        }
        if !idle { timeout = 0 }
        let count = broker_epoll_wait(epoll, &readySockets, &readiness, Int32(readySockets.count), timeout)
        lock.withLock { sleeping = false }
        if count == 0, timeout > 0, timerDeadline == nil, !active.isEmpty {
            // A second without a socket event or a timer while transfers are open: let libcurl check its own
            // timeouts anyway, so one missed timer callback cannot stall a transfer past its deadline.
            var running: Int32 = 0
            act(broker_curl_multi_socket_timeout(multi, &running))
        }
        guard count > 0 else { return }
        for index in 0..<Int(count) {
            let socket = readySockets[index]
            let ready = readiness[index]
            if socket == wakeRead {
                var sink = [UInt8](repeating: 0, count: 256)
                while read(wakeRead, &sink, sink.count) > 0 {}
                continue
            }
            var mask: Int32 = 0
            if ready & Int32(BROKER_EPOLL_IN.rawValue) != 0 { mask |= CURL_CSELECT_IN }
            if ready & Int32(BROKER_EPOLL_OUT.rawValue) != 0 { mask |= CURL_CSELECT_OUT }
            if ready & Int32(BROKER_EPOLL_ERROR.rawValue) != 0 { mask |= CURL_CSELECT_ERR }
            var running: Int32 = 0
            act(curl_multi_socket_action(multi, socket, mask, &running))
        }
    }

    /// Fails every transfer when a multi call failed (the multi handle is unusable then).
    private func act(_ code: CURLMcode) {
        do {
            try curlCheck(code, "curl_multi_socket_action")
        } catch {
            for transfer in active.values { finish(transfer, failing: error) }
        }
    }

    /// Completes the transfers libcurl has finished.
    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = active[easy]
            else { continue }
            let result = message.pointee.data.result
            remove(transfer)
            transfer.complete(with: result)
        }
    }

    /// Takes `transfer` out of the multi handle and fails its caller.
    private func finish(_ transfer: CurlTransfer, failing error: any Error) {
        remove(transfer)
        transfer.fail(error)
    }

    /// Takes `transfer` out of the multi handle (its connection stays in the cache when reusable).
    private func remove(_ transfer: CurlTransfer) {
        active[transfer.easy] = nil
        try? curlCheck(curl_multi_remove_handle(multi, transfer.easy), "curl_multi_remove_handle")
    }
}

// libcurl's multi callbacks. They run on the transfer thread, inside its multi calls; `userp` is the loop.

/// `CURLMOPT_SOCKETFUNCTION`.
private func curlSocketCallback(
    _ easy: UnsafeMutableRawPointer?, _ socket: curl_socket_t, _ what: Int32, _ userp: UnsafeMutableRawPointer?,
    _ socketp: UnsafeMutableRawPointer?
) -> Int32 {
    guard let userp else { return -1 }
    Unmanaged<CurlMultiLoop>.fromOpaque(userp).takeUnretainedValue().watch(socket, what)
    return 0
}

/// `CURLMOPT_TIMERFUNCTION`.
private func curlTimerCallback(_ multi: UnsafeMutableRawPointer?, _ milliseconds: Int, _ userp: UnsafeMutableRawPointer?)
    -> Int32
{
    guard let userp else { return -1 }
    Unmanaged<CurlMultiLoop>.fromOpaque(userp).takeUnretainedValue().setTimer(milliseconds: milliseconds)
    return 0
}
