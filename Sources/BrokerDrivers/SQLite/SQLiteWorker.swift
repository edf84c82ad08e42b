import BrokerCore
import Dispatch

/// One ``SQLiteConnection`` and the serial dispatch queue that is the only place it is used, so blocking
/// SQLite calls never run on Swift's cooperative thread pool.
///
/// `@unchecked Sendable`: the only mutable state, `connection`, is read and written exclusively on `queue`
/// (a serial queue), which serializes every access.
final class SQLiteWorker: @unchecked Sendable {
    private let queue: DispatchQueue
    /// Touched only on `queue`; nil once closed.
    private var connection: SQLiteConnection?

    /// Opens the connection on the worker's own queue. The caller's thread waits for it.
    init(label: String, open: () throws -> SQLiteConnection) throws {
        queue = DispatchQueue(label: label)
        connection = try queue.sync(execute: open)
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

    /// Closes the connection once the work queued before this call has finished.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.connection = nil
                continuation.resume()
            }
        }
    }
}
