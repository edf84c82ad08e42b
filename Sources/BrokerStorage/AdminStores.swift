public import BrokerModel
import Foundation

/// Listing accounts for administrators: ordered by (createdAt, uid), so a page never repeats or skips an
/// account, whatever is created meanwhile (new accounts sort after the existing ones).
public protocol AccountDirectory: Sendable {
    /// Up to `limit` accounts matching `filter` after `cursor`, in (createdAt, uid) order.
    func listAccounts(filter: AccountFilter, after cursor: PageCursor?, limit: Int) async throws -> [Account]
}

/// The audit log.
public protocol AuditLog: Sendable {
    /// Appends an event.
    func appendAuditEvent(_ event: AuditEvent) async throws
    /// Up to `limit` events (of `uid`, if given) older than `cursor`, newest first.
    func auditEvents(uid: AccountID?, before cursor: PageCursor?, limit: Int) async throws -> [AuditEvent]
}
