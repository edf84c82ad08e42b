import Foundation

/// A fixed number of threads running blocking jobs in arrival order: work that is CPU- or memory-heavy
/// (password hashing) runs here, never on Swift's cooperative pool, and never more than `workers` at once.
final class BoundedWorkerPool: @unchecked Sendable {
    // `jobs` and `stopping` are guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var stopping = false
    private let condition = NSCondition()

    /// Starts `workers` threads named `name`.
    init(workers: Int, name: String) {
        for index in 0..<max(1, workers) {
            let thread = Thread { [self] in loop() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    deinit { stop() }

    /// Runs `work` on a pool thread and returns its result.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            enqueue { continuation.resume(returning: work()) }
        }
    }

    /// Lets the threads finish the queued jobs and exit.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
