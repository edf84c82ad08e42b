import BrokerCore
import CBrokerShims
import CCurl
import Foundation

/// libcurl's multi interface on one dedicated thread (never the cooperative pool). Callers hand transfers
/// over through a locked queue and `curl_multi_wakeup`; the thread polls, performs, and resumes each finished
/// transfer's continuation. The multi handle keeps the connection cache, so connections are reused.
///
/// `@unchecked Sendable`: `pending`, `cancellations`, `stopRequested`, `exited` and `exitWaiters` are
/// guarded by `lock`; `active` and every multi call except `curl_multi_wakeup` (which libcurl allows from
/// any thread) belong to the transfer thread. The multi handle is freed in `deinit`, which can only run after
/// the thread (which holds a reference) has returned.
final class CurlMultiLoop: @unchecked Sendable {
    /// The multi handle (`CURLM *`).
    private let multi: UnsafeMutableRawPointer

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

    /// Transfers inside the multi handle, by easy handle; transfer thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    /// Creates the multi handle, keeping at most `maxConnections` idle connections cached.
    init(maxConnections: Int) throws(HTTPClientError) {
        try curlCheck(curlGlobalInitialization, "curl_global_init")
        guard let multi = curl_multi_init() else { throw HTTPClientError(.transport, "curl_multi_init failed") }
        self.multi = multi
        try curlCheck(broker_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, maxConnections)), "CURLMOPT_MAXCONNECTS")
    }

    deinit {
        curl_multi_cleanup(multi)
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
        wakeUp()
    }

    /// Asks the thread to abandon `transfer`; its caller gets `CancellationError`.
    func cancel(_ transfer: CurlTransfer) {
        lock.withLock {
            transfer.cancelRequested = true
            cancellations.append(transfer)
        }
        wakeUp()
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

    /// Interrupts `curl_multi_poll`.
    private func wakeUp() {
        // A failed wakeup only delays the thread until its poll timeout.
        try? curlCheck(curl_multi_wakeup(multi), "curl_multi_wakeup")
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

            var running: Int32 = 0
            do {
                try curlCheck(curl_multi_perform(multi, &running), "curl_multi_perform")
            } catch {
                for transfer in active.values { finish(transfer, failing: error) }
            }
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active[easy]
                else { continue }
                let result = message.pointee.data.result
                remove(transfer)
                transfer.complete(with: result)
            }
            // Sleeps until a socket is ready, libcurl's next timeout, a wakeup, or one second.
            _ = try? curlCheck(curl_multi_poll(multi, nil, 0, 1000, nil), "curl_multi_poll")
        }
        let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
            exited = true
            defer { exitWaiters = [] }
            return exitWaiters
        }
        for waiter in waiters { waiter.resume() }
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
