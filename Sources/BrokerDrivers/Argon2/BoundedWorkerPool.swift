import Foundation

/// A fixed number of threads running blocking jobs in arrival order: work that is CPU- or memory-heavy
/// (password hashing) runs here, never on Swift's cooperative pool, and never more than `workers` at once.
final class BoundedWorkerPool: @unchecked Sendable {
    // `jobs`, `stopping`, `running`, `peak` and `started` are guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var stopping = false
    private var running = 0
    private var peak = 0
    private var started = 0
    private let condition = NSCondition()
    private let maximumQueued: Int
    private let workers: Int

    /// The pool's queue is full.
    struct Full: Error {}

    /// Starts `workers` threads named `name`; at most `maximumQueued` jobs wait.
    init(workers: Int, name: String, maximumQueued: Int = .max) {
        self.maximumQueued = maximumQueued
        self.workers = max(1, workers)
        for index in 0..<self.workers {
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

    /// The most jobs that have run at the same time since the pool started (never above `workers`).
    var peakRunning: Int {
        condition.lock()
        defer { condition.unlock() }
        return peak
    }

    /// How many jobs wait for a thread now.
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// How many jobs the pool's threads have taken up (counted before each runs, so before its caller resumes).
    var jobsStarted: Int {
        condition.lock()
        defer { condition.unlock() }
        return started
    }

    /// Lets the threads finish the queued jobs and exit.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// Queues `job` unless `maximumQueued` jobs already wait. A job an idle thread is about to take up does not
    /// wait: it counts against the idle threads first, so a burst that arrives before they wake is not refused.
    private func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let idle = max(0, workers - running)
        guard max(0, jobs.count - idle) < maximumQueued else { return false }
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
            running += 1
            started += 1
            peak = max(peak, running)
            condition.unlock()
            job()
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}
