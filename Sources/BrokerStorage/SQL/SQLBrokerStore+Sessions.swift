public import BrokerModel
public import Foundation

/// ``SessionStore``: refresh tokens, in the `refresh_tokens` table.
extension SQLBrokerStore {
    static let tokenColumns =
        "token_hash, session_id, uid, sign_in_provider, created_at, expires_at, rotated_at, revoked_at, surface, "
        + "claims, auth_time"
    static let insertToken = "INSERT INTO refresh_tokens (\(tokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    /// The columns a look-up reads: the inserted ones and `used_at` (schema version 19), which only a use writes.
    static let tokenReadColumns = tokenColumns + ", used_at"

    /// Deletes refresh tokens and single-use marks that expired before `date`.
    @discardableResult
    public func purgeExpired(before date: Date) async throws -> Int {
        try await write { connection in
            try connection.execute("DELETE FROM refresh_tokens WHERE expires_at < ?", [Self.millis(date)])
                + connection.execute("DELETE FROM used_marks WHERE expires_at < ?", [Self.millis(date)])
        }
    }

    /// Stores a newly issued token; a hash stored before throws `alreadyExists`.
    public func insertRefreshToken(_ record: RefreshTokenRecord) async throws {
        try await write { connection in
            try connection.execute(Self.insertToken, Self.tokenValues(record))
        }
    }

    /// The record of the token with this hash.
    public func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await read { connection in try Self.loadToken(hash: hash, in: connection) }
    }

    /// ``tokenReadColumns`` from the tokens aliased `t`, the two the account also has (`uid`, `created_at`)
    /// renamed `token_uid` and `token_created_at`.
    static let joinedTokenColumns = tokenReadColumns.split(separator: ",")
        .map { column in
            let name = column.trimmingCharacters(in: .whitespaces)
            return name == "uid" || name == "created_at" ? "t.\(name) AS token_\(name)" : "t.\(name)"
        }
        .joined(separator: ", ")
    /// The record of the token with this hash and its account, with its identities, in one statement (one row
    /// per identity).
    static let selectTokenWithAccountByHash =
        "SELECT \(joinedTokenColumns), \(accountColumns), \(joinedIdentityColumns) "
        + "FROM refresh_tokens t LEFT JOIN accounts a ON a.uid = t.uid LEFT JOIN identities i ON i.uid = a.uid "
        + "WHERE t.token_hash = ?"

    /// The record of the token with this hash and its account, with its identities, in one read of one statement
    /// (a refresh's only read: one hand-off to a read connection, one snapshot, one statement instead of three).
    public func refreshTokenAndAccount(hash: String) async throws -> (RefreshTokenRecord, Account?)? {
        try await read { connection in
            let rows = try connection.query(Self.selectTokenWithAccountByHash, [.text(hash)])
            guard let first = rows.first else { return nil }
            let token = try Self.decodeToken(first, uid: "token_uid", createdAt: "token_created_at")
            // No account row joined (the account is gone): its columns are NULL.
            guard first.text("uid") != nil else { return (token, nil) }
            return (token, try Self.joinedAccount(first, rows))
        }
    }

    static func loadToken(hash: String, in connection: any SQLConnection) throws -> RefreshTokenRecord? {
        try connection.query("SELECT \(tokenReadColumns) FROM refresh_tokens WHERE token_hash = ?", [.text(hash)])
            .first.map { try decodeToken($0) }
    }

    /// Marks `hash` rotated and stores `successor` in one transaction, if `hash` was neither rotated nor
    /// revoked: the conditional UPDATE lets exactly one of concurrent rotations through.
    public func rotateRefreshToken(hash: String, at date: Date, successor: RefreshTokenRecord) async throws -> Bool {
        try await write { connection in
            let changed = try connection.execute(
                "UPDATE refresh_tokens SET rotated_at = ? WHERE token_hash = ? AND rotated_at IS NULL AND revoked_at IS NULL",
                [Self.millis(date), .text(hash)])
            guard changed > 0 else { return false }
            try connection.execute(Self.insertToken, Self.tokenValues(successor))
            return true
        }
    }

    /// Stores `successor` unless a token of its session has been revoked.
    public func addToSession(_ successor: RefreshTokenRecord) async throws -> Bool {
        try await write { connection in
            let revoked = try connection.query(
                "SELECT 1 AS revoked FROM refresh_tokens WHERE session_id = ? AND revoked_at IS NOT NULL LIMIT 1",
                [.text(successor.sessionID)])
            guard revoked.isEmpty else { return false }
            try connection.execute(Self.insertToken, Self.tokenValues(successor))
            return true
        }
    }

    /// Records a use of the token without rotating it, if it is not revoked.
    public func useRefreshToken(hash: String, at date: Date) async throws -> Bool {
        try await write { connection in
            try connection.execute(
                "UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND revoked_at IS NULL",
                [Self.millis(date), .text(hash)]) > 0
        }
    }

    /// Whether the session holds a token neither revoked nor expired (one indexed look-up by session id).
    public func isSessionLive(id: String, accountID: AccountID, at date: Date) async throws -> Bool {
        try await read { connection in try Self.isSessionLive(id: id, accountID: accountID, at: date, in: connection) }
    }

    /// Whether the session is live and, when it is, the account with its identities, in one read transaction of
    /// two statements (the liveness look-up; the account joined to its identities), where the two reads of
    /// ``isSessionLive(id:accountID:at:)`` and ``account(id:)`` take two transactions and three statements.
    public func liveSessionAccount(
        id: String, accountID: AccountID, at date: Date
    ) async throws -> (live: Bool, account: Account?) {
        try await read { connection in
            guard try Self.isSessionLive(id: id, accountID: accountID, at: date, in: connection) else {
                return (false, nil)
            }
            let rows = try connection.query(Self.selectAccountWithIdentitiesByID, [.text(accountID.rawValue)])
            return (true, try rows.first.map { try Self.joinedAccount($0, rows) })
        }
    }

    /// One row per identity of the account with this uid (one row with NULL identity columns when it has none),
    /// each with the account's columns.
    static let selectAccountWithIdentitiesByID =
        "SELECT \(accountColumns), \(joinedIdentityColumns) FROM accounts a LEFT JOIN identities i ON i.uid = a.uid "
        + "WHERE a.uid = ?"

    static func isSessionLive(
        id: String, accountID: AccountID, at date: Date, in connection: any SQLConnection
    ) throws -> Bool {
        try !connection.query(
            "SELECT 1 AS live FROM refresh_tokens WHERE session_id = ? AND uid = ? AND revoked_at IS NULL AND expires_at > ? LIMIT 1",
            [.text(id), .text(accountID.rawValue), millis(date)]
        ).isEmpty
    }

    /// Revokes every not yet revoked token of the session.
    public func revokeSession(id: String, at date: Date) async throws {
        try await write { connection in
            try connection.execute(
                "UPDATE refresh_tokens SET revoked_at = ? WHERE session_id = ? AND revoked_at IS NULL",
                [Self.millis(date), .text(id)])
        }
    }

    /// Revokes every not yet revoked token of the account.
    public func revokeSessions(accountID: AccountID, at date: Date) async throws {
        try await write { connection in
            try connection.execute(Self.revokeTokensOfAccount, [Self.millis(date), .text(accountID.rawValue)])
            try connection.execute(
                Self.invalidateIDTokensOfAccount, [Self.millis(Self.validAfter(date)), .text(accountID.rawValue)])
        }
    }

    static func tokenValues(_ record: RefreshTokenRecord) -> [SQLValue] {
        [
            .text(record.tokenHash), .text(record.sessionID), .text(record.accountID.rawValue),
            .text(record.signInProvider), millis(record.createdAt), millis(record.expiresAt),
            record.rotatedAt.map(millis) ?? .null, record.revokedAt.map(millis) ?? .null, .text(record.surface.rawValue),
            record.claims.map(SQLValue.text) ?? .null, millis(record.authTime),
        ]
    }

    /// The token in `row`, whose `uid` and `created_at` columns may go by other names (a joined load's).
    static func decodeToken(
        _ row: SQLRow, uid: String = "uid", createdAt createdAtColumn: String = "created_at"
    ) throws -> RefreshTokenRecord {
        let sessionID: String = try required(row, "session_id")
        let createdAt = date(try requiredInteger(row, createdAtColumn))
        // A session stored before version 13 has no `auth_time`: its sign-in time is the one its id begins with
        // (``SessionGrant/newSessionID(at:)``), else the token's own.
        let authTime =
            row.integer("auth_time").map(date) ?? SessionGrant.creationTime(ofSessionID: sessionID) ?? createdAt
        return RefreshTokenRecord(
            tokenHash: try required(row, "token_hash"),
            sessionID: sessionID,
            accountID: AccountID(try required(row, uid)),
            signInProvider: try required(row, "sign_in_provider"),
            createdAt: createdAt,
            expiresAt: date(try requiredInteger(row, "expires_at")),
            rotatedAt: row.integer("rotated_at").map(date),
            revokedAt: row.integer("revoked_at").map(date),
            // A surface this version does not know is treated as one no listener accepts.
            surface: SessionSurface(rawValue: try required(row, "surface")),
            claims: row.text("claims"), authTime: authTime, usedAt: row.integer("used_at").map(date))
    }
}
