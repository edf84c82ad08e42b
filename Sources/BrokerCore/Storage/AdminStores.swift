public import BrokerModel
import Foundation

/// Which accounts a listing wants.
public struct AccountFilter: Sendable, Equatable {
    /// Only the account holding this email (case-insensitive).
    public var email: String?
    /// Only accounts with this sign-in method (a provider's id, or `password` for a usable password).
    public var provider: String?
    /// Only accounts whose email starts with this (case-insensitive).
    public var emailPrefix: String?
    /// Only guests (true) or only accounts that are not guests (false).
    public var anonymous: Bool?

    /// Creates a filter.
    public init(email: String? = nil, provider: String? = nil, emailPrefix: String? = nil, anonymous: Bool? = nil) {
        self.email = email
        self.provider = provider
        self.emailPrefix = emailPrefix
        self.anonymous = anonymous
    }
}

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
