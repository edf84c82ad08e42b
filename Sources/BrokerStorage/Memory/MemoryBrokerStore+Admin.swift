public import BrokerModel
public import Foundation

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
                if let anonymous = filter.anonymous, account.isAnonymous != anonymous { return false }
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

/// ``GuestStore`` in memory, with the SQL store's semantics.
extension MemoryBrokerStore {
    /// Records a guest made from `address` unless `limit` were made within `window` (see ``GuestStore``).
    public func reserveGuestCreation(address: String, at date: Date, window: TimeInterval, limit: Int) -> Date? {
        let since = date - window
        guestCreations = guestCreations.filter { $0.at > since }
        let recorded = guestCreations.filter { $0.address == address }.map(\.at).sorted()
        if recorded.count >= limit { return recorded[recorded.count - limit] + window }
        guestCreations.append((address, Date(timeIntervalSince1970: Double(date.epochMilliseconds) / 1000)))
        return nil
    }

    /// Up to `limit` guests inactive since `cutoff`, oldest first.
    public func inactiveGuests(before cutoff: Date, limit: Int) -> [AccountID] {
        let refreshed = Set(
            allRefreshTokens.filter { $0.createdAt >= cutoff || ($0.usedAt.map { $0 >= cutoff } ?? false) }
                .map(\.accountID))
        return allAccounts
            .filter { account in
                account.isAnonymous && account.createdAt < cutoff && (account.lastSignInAt.map { $0 < cutoff } ?? true)
                    && !refreshed.contains(account.id)
            }
            .sorted { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
            .prefix(limit)
            .map(\.id)
    }

    /// Takes or extends the lease `name` for `holder` when it is free or already `holder`'s.
    public func acquireLease(_ name: String, holder: String, until expiresAt: Date, now: Date) -> Bool {
        if let lease = leases[name], lease.holder != holder, lease.expiresAt > now { return false }
        leases[name] = (holder, expiresAt)
        return true
    }
}
