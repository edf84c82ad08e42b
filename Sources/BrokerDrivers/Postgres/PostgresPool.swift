import BrokerCore
import Foundation

/// The pool's free workers and the tasks waiting for one.
///
/// A task that finds no free worker suspends on a continuation (first come, first served) instead of blocking
/// a thread, so the cooperative pool never waits on the database. `@unchecked Sendable`: `idle`, `waiters` and
/// `closed` are only touched with `lock` held.
final class PostgresPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [PostgresWorker]
    private var waiters: [CheckedContinuation<PostgresWorker, any Error>] = []
    private var closed = false
    /// Every worker, free or not.
    let workers: [PostgresWorker]

    init(workers: [PostgresWorker]) {
        self.workers = workers
        idle = workers
    }

    /// Runs `body` with a worker of its own, returning the worker to the pool afterwards.
    func withWorker<T>(_ body: (PostgresWorker) async throws -> T) async throws -> T {
        let worker = try await acquire()
        defer { release(worker) }
        return try await body(worker)
    }

    /// Refuses new work and fails the waiting tasks; work already running finishes.
    func close() {
        let failed: [CheckedContinuation<PostgresWorker, any Error>] = lock.withLock {
            closed = true
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in failed { waiter.resume(throwing: SQLError(.unavailable, "the database is closed")) }
    }

    private enum Acquired {
        case worker(PostgresWorker)
        case waiting
        case closed
    }

    private func acquire() async throws -> PostgresWorker {
        try await withCheckedThrowingContinuation { continuation in
            let acquired: Acquired = lock.withLock {
                if closed { return .closed }
                if let worker = idle.popLast() { return .worker(worker) }
                waiters.append(continuation)
                return .waiting
            }
            switch acquired {
            case .worker(let worker): continuation.resume(returning: worker)
            case .closed: continuation.resume(throwing: SQLError(.unavailable, "the database is closed"))
            case .waiting: break  // resumed by `release` or `close`
            }
        }
    }

    private func release(_ worker: PostgresWorker) {
        let waiter: CheckedContinuation<PostgresWorker, any Error>? = lock.withLock {
            guard !waiters.isEmpty else {
                idle.append(worker)
                return nil
            }
            return waiters.removeFirst()
        }
        waiter?.resume(returning: worker)
    }
}
