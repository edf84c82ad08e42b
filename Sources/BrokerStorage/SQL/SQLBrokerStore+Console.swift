public import BrokerModel
public import Foundation

/// ``ConsoleStore`` over SQL.
extension SQLBrokerStore {
    /// Stores a new console session, first deleting the expired ones.
    public func insertConsoleSession(_ record: ConsoleSessionRecord) async throws {
        try await write { connection in
            try connection.execute("DELETE FROM console_sessions WHERE expires_at < ?", [Self.millis(record.createdAt)])
            try connection.execute(
                "INSERT INTO console_sessions (token_hash, created_at, expires_at) VALUES (?, ?, ?)",
                [.text(record.tokenHash), Self.millis(record.createdAt), Self.millis(record.expiresAt)])
        }
    }

    /// The console session with this hash.
    public func consoleSession(hash: String) async throws -> ConsoleSessionRecord? {
        try await read { connection in
            try connection.query(
                "SELECT token_hash, created_at, expires_at FROM console_sessions WHERE token_hash = ?", [.text(hash)]
            ).first.map { row in
                ConsoleSessionRecord(
                    tokenHash: try Self.required(row, "token_hash"), createdAt: Self.date(row.integer("created_at") ?? 0),
                    expiresAt: Self.date(row.integer("expires_at") ?? 0))
            }
        }
    }

    /// Ends the console session with this hash.
    @discardableResult
    public func deleteConsoleSession(hash: String) async throws -> Bool {
        try await write { connection in
            let found = try connection.query(
                "SELECT token_hash FROM console_sessions WHERE token_hash = ?", [.text(hash)])
            try connection.execute("DELETE FROM console_sessions WHERE token_hash = ?", [.text(hash)])
            return !found.isEmpty
        }
    }

    /// The refresh-token sessions of `accountID` at `date`.
    public func sessionSummary(accountID: AccountID, at date: Date) async throws -> SessionSummary {
        try await read { connection in
            let live = try connection.query(
                """
                SELECT COUNT(DISTINCT session_id) AS live FROM refresh_tokens \
                WHERE uid = ? AND revoked_at IS NULL AND expires_at > ?
                """, [.text(accountID.rawValue), Self.millis(date)]
            ).first?.integer("live") ?? 0
            // A token is used when it is issued, and again at each refresh of a session that keeps it (`used_at`).
            let row = try connection.query(
                "SELECT MAX(created_at) AS issued, MAX(used_at) AS used FROM refresh_tokens WHERE uid = ?",
                [.text(accountID.rawValue)]
            ).first
            let last = [row?.integer("issued"), row?.integer("used")].compactMap { $0 }.max()
            return SessionSummary(live: Int(live), lastUsedAt: last.map(Self.date))
        }
    }

    /// The `sign_in` audit events from `start` to `end`, counted per bucket, provider and outcome.
    public func signInCounts(from start: Date, to end: Date, bucketMilliseconds: Int64) async throws -> [SignInCount] {
        let bucket = max(1, bucketMilliseconds)
        return try await read { connection in
            // Integer division in both dialects (BIGINT / BIGINT); the log's primary key (at, id) bounds the scan.
            try connection.query(
                """
                SELECT (at / ?) AS bucket, COALESCE(provider, '') AS provider, outcome, COUNT(*) AS n \
                FROM audit_events WHERE action = 'sign_in' AND at >= ? AND at < ? \
                GROUP BY bucket, COALESCE(provider, ''), outcome ORDER BY bucket, provider, outcome
                """, [.integer(bucket), Self.millis(start), Self.millis(end)]
            ).map { row in
                SignInCount(
                    start: Self.date((row.integer("bucket") ?? 0) * bucket), provider: row.text("provider") ?? "",
                    outcome: row.text("outcome") ?? "", count: Int(row.integer("n") ?? 0))
            }
        }
    }

    /// Up to `limit` events matching `filter` older than `cursor`, newest first.
    public func auditEvents(matching filter: AuditFilter, before cursor: PageCursor?, limit: Int) async throws -> [AuditEvent] {
        var conditions: [String] = []
        var binds: [SQLValue] = []
        for (column, value) in [
            ("uid", filter.uid?.rawValue), ("action", filter.action?.rawValue), ("provider", filter.provider),
            ("outcome", filter.outcome),
        ] {
            guard let value else { continue }
            conditions.append("\(column) = ?")
            binds.append(.text(value))
        }
        if let cursor {
            conditions.append("(at < ? OR (at = ? AND id < ?))")
            binds += [.integer(cursor.millis), .integer(cursor.millis), .text(cursor.id)]
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        binds.append(.integer(Int64(limit)))
        let sql = """
            SELECT id, at, uid, action, provider, actor, outcome, request_id, client_address, user_agent \
            FROM audit_events\(whereClause) \
            ORDER BY at DESC, id DESC LIMIT ?
            """
        let query = binds
        return try await read { connection in
            try connection.query(sql, query).map { row in
                AuditEvent(
                    time: Self.date(row.integer("at") ?? 0), uid: row.text("uid").map(AccountID.init(rawValue:)),
                    action: AuditAction(rawValue: row.text("action") ?? ""), provider: row.text("provider"),
                    actor: AuditEvent.Actor(rawValue: row.text("actor") ?? "") ?? .system,
                    outcome: row.text("outcome") ?? "", requestID: row.text("request_id") ?? "", id: row.text("id") ?? "",
                    origin: RequestOrigin(clientAddress: row.text("client_address"), userAgent: row.text("user_agent")))
            }
        }
    }
}
