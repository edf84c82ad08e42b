import Foundation

/// ``AccountDirectory`` and ``AuditLog`` in memory, with the SQL store's order and cursor semantics.
extension MemoryBrokerStore {
    /// Up to `limit` accounts matching `filter` after `cursor`, in (createdAt, uid) order.
    public func listAccounts(filter: AccountFilter, after cursor: PageCursor?, limit: Int) -> [Account] {
        func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        return allAccounts
            .filter { account in
                if let cursor {
                    let key = millis(account.createdAt)
                    guard key > cursor.millis || (key == cursor.millis && account.id.rawValue > cursor.id) else { return false }
                }
                if let email = filter.email, account.email?.lowercased() != email.lowercased() { return false }
                if let prefix = filter.emailPrefix?.lowercased(), !prefix.isEmpty,
                    !(account.email?.lowercased().unicodeScalars.starts(with: prefix.unicodeScalars) ?? false)
                { return false }
                if let provider = filter.provider {
                    let matches = provider == "password"
                        ? account.hasUsablePassword : account.identity(ProviderID(provider)) != nil
                    if !matches { return false }
                }
                return true
            }
            .sorted { (millis($0.createdAt), $0.id.rawValue) < (millis($1.createdAt), $1.id.rawValue) }
            .prefix(limit)
            .map { $0 }
    }

    /// Appends an audit event.
    public func appendAuditEvent(_ event: AuditEvent) {
        var stored = event
        stored.time = Date(timeIntervalSince1970: (event.time.timeIntervalSince1970 * 1000).rounded() / 1000)
        auditLog.append(stored)
    }

    /// Up to `limit` events (of `uid`, if given) older than `cursor`, newest first.
    public func auditEvents(uid: AccountID?, before cursor: PageCursor?, limit: Int) -> [AuditEvent] {
        func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        return auditLog
            .filter { event in
                if let uid, event.uid != uid { return false }
                if let cursor {
                    let key = millis(event.time)
                    guard key < cursor.millis || (key == cursor.millis && event.id < cursor.id) else { return false }
                }
                return true
            }
            .sorted { (millis($0.time), $0.id) > (millis($1.time), $1.id) }
            .prefix(limit)
            .map { $0 }
    }
}
