public import BrokerModel
import Foundation

/// ``AccountDirectory`` and ``AuditLog`` over SQL.
extension SQLBrokerStore {
    /// Up to `limit` accounts matching `filter` after `cursor`, in (createdAt, uid) order.
    public func listAccounts(filter: AccountFilter, after cursor: PageCursor?, limit: Int) async throws -> [Account] {
        var conditions: [String] = []
        var binds: [SQLValue] = []
        if let cursor {
            conditions.append("(a.created_at > ? OR (a.created_at = ? AND a.uid > ?))")
            binds += [.integer(cursor.millis), .integer(cursor.millis), .text(cursor.id)]
        }
        if let email = filter.email {
            conditions.append("a.email_key = ?")
            binds.append(.text(Self.emailKey(email)))
        }
        if let prefix = filter.emailPrefix.map(Self.emailKey), !prefix.isEmpty {
            // substr counts characters alike in SQLite and PostgreSQL, and needs no escaping (LIKE would).
            conditions.append("substr(a.email_key, 1, ?) = ?")
            binds.append(.integer(Int64(prefix.unicodeScalars.count)))
            binds.append(.text(prefix))
        }
        if let provider = filter.provider {
            if provider == "password" {
                conditions.append("a.password_hash IS NOT NULL AND a.password_derived = 0")
            } else {
                conditions.append("EXISTS (SELECT 1 FROM identities f WHERE f.uid = a.uid AND f.provider = ?)")
                binds.append(.text(provider))
            }
        }
        if let anonymous = filter.anonymous {
            conditions.append("a.anonymous = ?")
            binds.append(Self.boolean(anonymous))
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT \(Self.accountColumns) FROM accounts a\(whereClause) ORDER BY a.created_at, a.uid LIMIT ?"
        binds.append(.integer(Int64(limit)))
        let query = binds
        return try await read { connection in
            try connection.query(sql, query).map { row in
                var account = try Self.decodeAccount(row)
                account.identities = try connection.query(Self.selectIdentities, [.text(account.id.rawValue)])
                    .map(Self.decodeIdentity)
                return account
            }
        }
    }

    /// Appends an audit event.
    public func appendAuditEvent(_ event: AuditEvent) async throws {
        try await write { connection in
            try connection.execute(Self.insertAuditEvent, Self.auditEventValues(event))
        }
    }

    static let insertAuditEvent = """
        INSERT INTO audit_events (id, at, uid, action, provider, actor, outcome, request_id, client_address, \
        user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The values of ``insertAuditEvent``.
    static func auditEventValues(_ event: AuditEvent) -> [SQLValue] {
        [.text(event.id), millis(event.time), optionalText(event.uid?.rawValue), .text(event.action.rawValue),
         optionalText(event.provider), .text(event.actor.rawValue), .text(event.outcome), .text(event.requestID),
         optionalText(event.clientAddress), optionalText(event.userAgent)]
    }

    /// Up to `limit` events (of `uid`, if given) older than `cursor`, newest first: the filtered listing with
    /// only the account filter.
    public func auditEvents(uid: AccountID?, before cursor: PageCursor?, limit: Int) async throws -> [AuditEvent] {
        try await auditEvents(matching: AuditFilter(uid: uid), before: cursor, limit: limit)
    }
}
