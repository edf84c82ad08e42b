import Foundation

/// A fixed number of threads running blocking jobs in arrival order: work that is CPU- or memory-heavy
/// (password hashing) runs here, never on Swift's cooperative pool, and never more than `workers` at once.
final class BoundedWorkerPool: @unchecked Sendable {
    // `jobs` and `stopping` are guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var stopping = false
    private let condition = NSCondition()
    private let maximumQueued: Int

    /// The pool's queue is full.
    struct Full: Error {}

    /// Starts `workers` threads named `name`; at most `maximumQueued` jobs wait.
    init(workers: Int, name: String, maximumQueued: Int = .max) {
        self.maximumQueued = maximumQueued
        for index in 0..<max(1, workers) {
            let thread = Thread { [self] in loop() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    deinit { stop() }

    /// Runs `work` on a pool thread and returns its result; throws ``Full`` when the queue is full.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            guard enqueue({ continuation.resume(returning: work()) }) else {
                continuation.resume(throwing: Full())
                return
            }
        }
    }

    /// Lets the threads finish the queued jobs and exit.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard jobs.count < maximumQueued else { return false }
        jobs.append(job)
        condition.signal()
        return true
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
