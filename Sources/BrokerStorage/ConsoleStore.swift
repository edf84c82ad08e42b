public import BrokerModel
public import Foundation

/// What the admin console needs from the store beyond the admin API's listings: its own sessions, a summary of
/// an account's sessions, sign-in counts over time (read from the audit log, which every sign-in already
/// writes), and filtered audit listings.
public protocol ConsoleStore: Sendable {
    /// Stores a new console session, first deleting those expired before `record.createdAt`.
    func insertConsoleSession(_ record: ConsoleSessionRecord) async throws
    /// The console session with this hash, if it is stored (expired or not).
    func consoleSession(hash: String) async throws -> ConsoleSessionRecord?
    /// Ends the console session with this hash; true when one was stored.
    @discardableResult
    func deleteConsoleSession(hash: String) async throws -> Bool
    /// The refresh-token sessions of `accountID` at `date`.
    func sessionSummary(accountID: AccountID, at date: Date) async throws -> SessionSummary
    /// The `sign_in` audit events from `start` (inclusive) to `end` (exclusive), counted per bucket of
    /// `bucketMilliseconds` (buckets start at multiples of it since 1970), provider and outcome; ordered by
    /// bucket, provider, outcome.
    func signInCounts(from start: Date, to end: Date, bucketMilliseconds: Int64) async throws -> [SignInCount]
    /// Up to `limit` events matching `filter` older than `cursor`, newest first.
    func auditEvents(matching filter: AuditFilter, before cursor: PageCursor?, limit: Int) async throws -> [AuditEvent]
}
