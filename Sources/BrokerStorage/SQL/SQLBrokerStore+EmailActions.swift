public import BrokerModel
public import Foundation

/// The email flows' codes and per-address mail counts over SQL.
extension SQLBrokerStore {
    /// Counts, checks and stores in one write transaction; see ``EmailActionStore``.
    public func requestMail(
        emailKey: String, at now: Date, limit: Int, window: TimeInterval, code: OOBCodeRecord?, mail: OutboxJob?,
        recording events: [AuditEvent], rehearsing: Bool
    ) async throws -> Bool {
        let since = now - window
        return try await write { connection in
            // Old counts and codes go as new ones come.
            try connection.execute("DELETE FROM mail_requests WHERE requested_at <= ?", [Self.millis(since)])
            try connection.execute("DELETE FROM oob_codes WHERE expires_at < ?", [Self.millis(since)])
            let count = try connection.query(
                "SELECT COUNT(*) AS n FROM mail_requests WHERE email_key = ? AND requested_at > ?",
                [.text(emailKey), Self.millis(since)]
            ).first?.integer("n") ?? 0
            guard count < limit else { return false }
            try connection.execute(
                "INSERT INTO mail_requests (email_key, requested_at) VALUES (?, ?)", [.text(emailKey), Self.millis(now)])
            if let code { try Self.insert(code, in: connection) }
            if let mail { try connection.execute(Self.insertOutboxJob, Self.outboxJobValues(mail)) }
            if rehearsing {
                if let code {
                    try connection.execute("DELETE FROM oob_codes WHERE code_hash = ?", [.text(code.codeHash)])
                }
                if let mail { try connection.execute("DELETE FROM outbox_jobs WHERE id = ?", [.text(mail.id)]) }
            }
            for event in events { try connection.execute(Self.insertAuditEvent, Self.auditEventValues(event)) }
            return true
        }
    }

    /// Stores a code without counting a mail request, in one write transaction.
    public func storeOOBCode(_ code: OOBCodeRecord, recording events: [AuditEvent]) async throws {
        try await write { connection in
            do {
                try Self.insert(code, in: connection)
            } catch let error as SQLError where error.code == .uniqueViolation {
                throw AccountStoreError(.alreadyExists, "oob code")
            }
            for event in events { try connection.execute(Self.insertAuditEvent, Self.auditEventValues(event)) }
        }
    }

    /// Whether the code's single-use mark is recorded and not expired.
    public func isOOBCodeUsed(hash: String, at now: Date) async throws -> Bool {
        try await read { connection in
            try connection.query(
                "SELECT 1 AS used FROM used_marks WHERE key = ? AND expires_at >= ?",
                [.text("oob:" + hash), Self.millis(now)]
            ).first != nil
        }
    }

    /// Stores `code`; a reset code replaces the account's earlier ones (only the newest reset link works).
    static func insert(_ code: OOBCodeRecord, in connection: any SQLConnection) throws {
        if code.action == .resetPassword {
            try connection.execute(deleteResetCodesOfAccount, [.text(code.uid.rawValue), .text(code.action.rawValue)])
        }
        try connection.execute(insertOOBCode, oobCodeValues(code))
    }

    static let deleteResetCodesOfAccount = "DELETE FROM oob_codes WHERE uid = ? AND action = ?"

    static let insertOOBCode =
        "INSERT INTO oob_codes (code_hash, action, uid, email_key, continue_url, created_at, expires_at, target_email) "
        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

    static func oobCodeValues(_ code: OOBCodeRecord) -> [SQLValue] {
        [
            .text(code.codeHash), .text(code.action.rawValue), .text(code.uid.rawValue), .text(code.emailKey),
            Self.optionalText(code.continueURL), Self.millis(code.createdAt), Self.millis(code.expiresAt),
            Self.optionalText(code.targetEmail),
        ]
    }

    /// The record of the code with this hash.
    public func oobCode(hash: String) async throws -> OOBCodeRecord? {
        try await read { connection in
            guard
                let row = try connection.query(
                    "SELECT code_hash, action, uid, email_key, continue_url, created_at, expires_at, target_email "
                        + "FROM oob_codes WHERE code_hash = ?",
                    [.text(hash)]
                ).first
            else { return nil }
            guard let action = MailAction(rawValue: try Self.required(row, "action")) else {
                throw SQLError(.other, "oob_codes.action is unknown")
            }
            return OOBCodeRecord(
                codeHash: try Self.required(row, "code_hash"), action: action, uid: AccountID(try Self.required(row, "uid")),
                emailKey: try Self.required(row, "email_key"), continueURL: row.text("continue_url"),
                createdAt: Self.date(try Self.requiredInteger(row, "created_at")),
                expiresAt: Self.date(try Self.requiredInteger(row, "expires_at")),
                targetEmail: row.text("target_email"))
        }
    }
}
