import BrokerCore
import BrokerStorage
import Dispatch
import Foundation

/// One ``SQLiteConnection`` and the serial dispatch queue that is the only place it is used, so blocking
/// SQLite calls never run on Swift's cooperative thread pool.
///
/// `@unchecked Sendable`: `connection` is read and written exclusively on `queue` (a serial queue), which
/// serializes every access; `queuedWrites` and `drainScheduled` are guarded by `lock`.
final class SQLiteWorker: @unchecked Sendable {
    private let queue: DispatchQueue
    /// Touched only on `queue`; nil once closed.
    private var connection: SQLiteConnection?
    /// Runs on `queue` after each group of writes has committed (or failed); touched only on `queue`.
    private var afterWrites: (@Sendable (SQLiteConnection) -> Void)?
    /// Write transactions waiting for the queue, committed together by the next drain.
    private var queuedWrites: [any SQLiteQueuedWrite] = []
    /// Whether a drain is on the queue.
    private var drainScheduled = false
    private let lock = NSLock()
    /// The most write transactions one commit carries.
    static let maximumGroup = 64

    /// Opens the connection on the worker's own queue. The caller's thread waits for it.
    init(label: String, open: () throws -> SQLiteConnection) throws {
        queue = DispatchQueue(label: label)
        connection = try queue.sync(execute: open)
    }

    /// Has `hook` run on the worker's queue after every group of writes (see ``write(_:)``).
    func runAfterWrites(_ hook: @escaping @Sendable (SQLiteConnection) -> Void) {
        queue.sync { afterWrites = hook }
    }

    /// Queues `body` on the worker's queue without waiting for it; it does not run once the worker is closed.
    func perform(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        queue.async {
            guard let connection = self.connection else { return }
            body(connection)
        }
    }

    /// Runs `body` with the connection on the worker's queue and resumes the caller with its result.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                guard let connection = self.connection else {
                    continuation.resume(throwing: SQLError(.unavailable, "the database is closed"))
                    return
                }
                continuation.resume(with: Result { try body(connection) })
            }
        }
    }

    /// Runs `body` as a write transaction and resumes the caller once it is durably committed (or has
    /// failed). Writes that queue up while the connection is busy are committed together: one `BEGIN
    /// IMMEDIATE` … `COMMIT`, and so one WAL sync, for all of them, each in a savepoint of its own, so a body
    /// that throws undoes its own changes and nothing else (see ``SQLiteConnection/commitTogether(_:)``).
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let write = SQLiteWrite(body: body, continuation: continuation)
            let schedule: Bool = lock.withLock {
                queuedWrites.append(write)
                defer { drainScheduled = true }
                return !drainScheduled
            }
            if schedule { queue.async { self.drainWrites() } }
        }
    }

    /// On `queue`: commits the writes queued so far (up to ``maximumGroup``) together.
    private func drainWrites() {
        let (group, more): ([any SQLiteQueuedWrite], Bool) = lock.withLock {
            let taken = Array(queuedWrites.prefix(Self.maximumGroup))
            queuedWrites.removeFirst(taken.count)
            drainScheduled = !queuedWrites.isEmpty
            return (taken, drainScheduled)
        }
        // The rest go in the next group, which runs after this one on the serial queue.
        if more { queue.async { self.drainWrites() } }
        guard let connection else {
            for write in group { write.complete(commitError: SQLError(.unavailable, "the database is closed")) }
            return
        }
        connection.commitTogether(group)
        afterWrites?(connection)
    }

    /// Closes the connection once the work queued before this call has finished.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.connection = nil
                self.afterWrites = nil
                continuation.resume()
            }
        }
    }
}

/// A write transaction waiting on a ``SQLiteWorker``: its body, and the caller to resume.
protocol SQLiteQueuedWrite: AnyObject {
    /// Runs the body on `connection`, inside the group's transaction; rethrows the body's error.
    func perform(_ connection: SQLiteConnection) throws
    /// Resumes the caller: with the body's result once the group committed (`commitError` nil), else with
    /// the body's own error, or `commitError` when the body had succeeded but its changes were not kept.
    func complete(commitError: (any Error)?)
}

/// ``SQLiteQueuedWrite`` for a body returning `T`.
///
/// `@unchecked Sendable`: `result` is written by `perform` and read by `complete`, both on the worker's queue.
final class SQLiteWrite<T: Sendable>: SQLiteQueuedWrite, @unchecked Sendable {
    private let body: @Sendable (SQLiteConnection) throws -> T
    private let continuation: CheckedContinuation<T, any Error>
    private var result: Result<T, any Error>?

    init(body: @escaping @Sendable (SQLiteConnection) throws -> T, continuation: CheckedContinuation<T, any Error>) {
        self.body = body
        self.continuation = continuation
    }

    func perform(_ connection: SQLiteConnection) throws {
        do {
            result = .success(try body(connection))
        } catch {
            result = .failure(error)
            throw error
        }
    }

    func complete(commitError: (any Error)?) {
        switch (result, commitError) {
        case (.failure(let own)?, _): continuation.resume(throwing: own)
        case (.success(let value)?, nil): continuation.resume(returning: value)
        case (_, let error?): continuation.resume(throwing: error)
        case (nil, nil): continuation.resume(throwing: SQLError(.other, "a write was completed without running"))
        }
    }
}
