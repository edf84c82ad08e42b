public import BrokerModel
public import Foundation

/// ``GuestStore`` over SQL (schema version 15).
extension SQLBrokerStore {
    static let selectInactiveGuests = """
        SELECT a.uid FROM accounts a \
        WHERE a.anonymous = 1 AND a.created_at < ? AND (a.last_sign_in_at IS NULL OR a.last_sign_in_at < ?) \
        AND NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.uid = a.uid AND (t.created_at >= ? OR t.used_at >= ?)) \
        ORDER BY a.created_at, a.uid LIMIT ?
        """

    /// Records a guest made from `address` unless `limit` were made within `window` (see ``GuestStore``).
    public func reserveGuestCreation(
        address: String, at date: Date, window: TimeInterval, limit: Int
    ) async throws -> Date? {
        let since = date - window
        return try await write { connection in
            try connection.execute("DELETE FROM guest_creations WHERE created_at <= ?", [Self.millis(since)])
            let recorded = try connection.query(
                "SELECT created_at FROM guest_creations WHERE address = ? AND created_at > ? ORDER BY created_at",
                [.text(address), Self.millis(since)]
            ).compactMap { $0.integer("created_at").map(Self.date) }
            if recorded.count >= limit { return recorded[recorded.count - limit] + window }
            try connection.execute(
                "INSERT INTO guest_creations (address, created_at) VALUES (?, ?)", [.text(address), Self.millis(date)])
            return nil
        }
    }

    /// Up to `limit` guests inactive since `cutoff`, oldest first.
    public func inactiveGuests(before cutoff: Date, limit: Int) async throws -> [AccountID] {
        let binds: [SQLValue] = Array(repeating: Self.millis(cutoff), count: 4) + [.integer(Int64(limit))]
        return try await read { connection in
            try connection.query(Self.selectInactiveGuests, binds).map { AccountID(try Self.required($0, "uid")) }
        }
    }

    /// Takes or extends the lease `name` for `holder` when it is free or already `holder`'s.
    public func acquireLease(_ name: String, holder: String, until expiresAt: Date, now: Date) async throws -> Bool {
        do {
            return try await write { connection in
                let taken = try connection.query("SELECT holder FROM job_leases WHERE name = ?", [.text(name)])
                guard !taken.isEmpty else {
                    try connection.execute(
                        "INSERT INTO job_leases (name, holder, expires_at) VALUES (?, ?, ?)",
                        [.text(name), .text(holder), Self.millis(expiresAt)])
                    return true
                }
                // Conditional: of instances updating at once, the row lock lets one through; the others find the
                // lease held when their condition is evaluated again.
                let updated = try connection.execute(
                    "UPDATE job_leases SET holder = ?, expires_at = ? "
                        + "WHERE name = ? AND (holder = ? OR expires_at <= ?)",
                    [.text(holder), Self.millis(expiresAt), .text(name), .text(holder), Self.millis(now)])
                return updated > 0
            }
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            return false  // another instance inserted the lease first
        }
    }
}
