import BrokerCore
import BrokerStorage
import Dispatch

/// One pooled ``PostgresConnection`` and the serial dispatch queue that is the only place it is used, so
/// blocking libpq calls never run on Swift's cooperative thread pool.
///
/// The connection is opened on first use and replaced when libpq reports it broken, so a broker whose
/// database went away reconnects by itself once it is back; while it is away, every use fails quickly with
/// `SQLError(.unavailable)` (connection refused) or within the connect timeout.
///
/// `@unchecked Sendable`: the mutable state, `connection` and `closed`, is read and written only on `queue`
/// (a serial queue), which serializes every access.
final class PostgresWorker: @unchecked Sendable {
    private let queue: DispatchQueue
    private let settings: PostgresSettings
    /// Touched only on `queue`; nil until first use and after a break.
    private var connection: PostgresConnection?
    /// Touched only on `queue`.
    private var closed = false

    init(label: String, settings: PostgresSettings) {
        queue = DispatchQueue(label: label)
        self.settings = settings
    }

    /// Runs `body` in a transaction of `kind` on the worker's queue. A transaction whose `BEGIN` met a
    /// connection broken while it was idle runs once more on a new connection.
    func transaction<T: Sendable>(
        _ kind: PostgresConnection.TransactionKind, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws -> T {
        try await run { worker in
            do {
                return try worker.connected().transaction(kind, body)
            } catch is PostgresConnection.StaleConnection {
                worker.connection = nil
                do {
                    return try worker.connected().transaction(kind, body)
                } catch let again as PostgresConnection.StaleConnection {
                    worker.connection = nil
                    throw again.underlying
                }
            }
        }
    }

    /// Runs `body` with the connection, outside any transaction, on the worker's queue.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await run { worker in try body(try worker.connected()) }
    }

    /// Closes the connection once the work queued before this call has finished; later uses throw
    /// `SQLError(.unavailable)`.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.closed = true
                self.connection = nil
                continuation.resume()
            }
        }
    }

    /// Runs `body` on the queue and resumes the caller with its result; a connection left broken is dropped.
    private func run<T: Sendable>(_ body: @escaping @Sendable (PostgresWorker) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = Result { try body(self) }
                if self.connection?.isBroken == true { self.connection = nil }
                continuation.resume(with: result)
            }
        }
    }

    /// The open connection, opening one if there is none. Call only on `queue`.
    private func connected() throws -> PostgresConnection {
        guard !closed else { throw SQLError(.unavailable, "the database is closed") }
        if let connection, !connection.isBroken { return connection }
        connection = nil
        let opened = try PostgresConnection(settings: settings)
        connection = opened
        return opened
    }
}
