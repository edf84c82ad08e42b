import BrokerCore
import BrokerStorage
import Foundation

/// The pool's free workers and the tasks waiting for one.
///
/// A task that finds no free worker suspends on a continuation (first come, first served) instead of blocking
/// a thread, so the cooperative pool never waits on the database; it waits at most `waitTimeout` (every worker
/// stuck on a server that stopped answering), then fails `.unavailable`. `@unchecked Sendable`: `idle`,
/// `waiters`, `nextWaiter` and `closed` are only touched with `lock` held.
final class PostgresPool: @unchecked Sendable {
    private typealias Waiter = (id: UInt64, continuation: CheckedContinuation<PostgresWorker, any Error>)

    private let lock = NSLock()
    private var idle: [PostgresWorker]
    private var waiters: [Waiter] = []
    private var nextWaiter: UInt64 = 0
    private var closed = false
    private let waitTimeout: Duration
    /// Every worker, free or not.
    let workers: [PostgresWorker]

    init(workers: [PostgresWorker], waitTimeout: Duration) {
        self.workers = workers
        self.waitTimeout = waitTimeout
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
            return waiters.map(\.continuation)
        }
        for waiter in failed { waiter.resume(throwing: SQLError(.unavailable, "the database is closed")) }
    }

    private enum Acquired {
        case worker(PostgresWorker)
        case waiting(UInt64)
        case closed
    }

    private func acquire() async throws -> PostgresWorker {
        try await withCheckedThrowingContinuation { continuation in
            let acquired: Acquired = lock.withLock {
                if closed { return .closed }
                if let worker = idle.popLast() { return .worker(worker) }
                nextWaiter += 1
                waiters.append((nextWaiter, continuation))
                return .waiting(nextWaiter)
            }
            switch acquired {
            case .worker(let worker): continuation.resume(returning: worker)
            case .closed: continuation.resume(throwing: SQLError(.unavailable, "the database is closed"))
            case .waiting(let id):
                // Resumed by `release` or `close`, or here once the wait is over.
                let (seconds, attoseconds) = waitTimeout.components
                let nanoseconds = Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                    timeOut(id)
                }
            }
        }
    }

    /// Fails the waiter `id` if it is still waiting.
    private func timeOut(_ id: UInt64) {
        let expired: CheckedContinuation<PostgresWorker, any Error>? = lock.withLock {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index).continuation
        }
        expired?.resume(
            throwing: SQLError(
                .unavailable, "no database connection came free within \(waitTimeout.components.seconds) s"))
    }

    private func release(_ worker: PostgresWorker) {
        let waiter: CheckedContinuation<PostgresWorker, any Error>? = lock.withLock {
            guard !waiters.isEmpty else {
                idle.append(worker)
                return nil
            }
            return waiters.removeFirst().continuation
        }
        waiter?.resume(returning: worker)
    }
}
