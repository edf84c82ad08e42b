import BrokerCrypto
public import BrokerModel
public import Foundation

/// ``PasskeyStore`` over SQL (schema version 20).
extension SQLBrokerStore {
    static let passkeyColumns =
        "id, uid, user_handle, public_key, algorithm, sign_count, transports, name, created_at, last_used_at, "
        + "backup_eligible, backed_up"
    static let insertPasskeyRow =
        "INSERT INTO passkeys (\(passkeyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let passkeyChallengeColumns =
        "challenge_hash, ceremony, uid, user_handle, email, display_name, created_at, expires_at"

    /// The account's passkeys, oldest first.
    public func passkeys(uid: AccountID) async throws -> [PasskeyRecord] {
        try await read { connection in
            try connection.query(
                "SELECT \(Self.passkeyColumns) FROM passkeys WHERE uid = ? ORDER BY created_at, id",
                [.text(uid.rawValue)]
            ).map(Self.passkey)
        }
    }

    /// The passkey with credential id `id`.
    public func passkey(id: String) async throws -> PasskeyRecord? {
        try await read { connection in try Self.passkey(id: id, in: connection) }
    }

    /// Stores a challenge, forgetting expired ones.
    public func insertPasskeyChallenge(_ record: PasskeyChallengeRecord) async throws {
        try await write { connection in
            try connection.execute(
                "DELETE FROM passkey_challenges WHERE expires_at < ?", [Self.millis(record.createdAt)])
            try connection.execute(
                "INSERT INTO passkey_challenges (\(Self.passkeyChallengeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(record.challengeHash), .text(record.ceremony.rawValue), Self.optional(record.uid?.rawValue),
                    Self.optional(record.userHandle), Self.optional(record.email), Self.optional(record.displayName),
                    Self.millis(record.createdAt), Self.millis(record.expiresAt),
                ])
        }
    }

    /// Spends the unexpired challenge of `ceremony`.
    public func consumePasskeyChallenge(
        hash: String, ceremony: PasskeyCeremony, at date: Date
    ) async throws -> PasskeyChallengeRecord? {
        try await write { connection in
            let rows = try connection.query(
                "SELECT \(Self.passkeyChallengeColumns) FROM passkey_challenges "
                    + "WHERE challenge_hash = ? AND ceremony = ? AND expires_at >= ?",
                [.text(hash), .text(ceremony.rawValue), Self.millis(date)])
            guard let row = rows.first,
                try connection.execute("DELETE FROM passkey_challenges WHERE challenge_hash = ?", [.text(hash)]) > 0
            else { return nil }
            return try Self.passkeyChallenge(row)
        }
    }

    /// Stores a new passkey of an existing account.
    public func insertPasskey(_ record: PasskeyRecord, recording: [AuditEvent]) async throws {
        let announced = AccountWriteOptions(recording: recording).announcing(announcer, uid: record.uid)
        let now = clock.now
        try await write { connection in
            guard
                try connection.query("SELECT uid FROM accounts WHERE uid = ?", [.text(record.uid.rawValue)]).first
                    != nil
            else { throw AccountStoreError(.notFound, "no account \(record.uid)") }
            try connection.execute(Self.insertPasskeyRow, Self.passkeyValues(record))
            // A passkey is a way in: a guest that registers one is a guest no more (contract section 13).
            try connection.execute("UPDATE accounts SET anonymous = 0 WHERE uid = ?", [.text(record.uid.rawValue)])
            try Self.applyWriteOptions(announced, uid: record.uid, now: now, in: connection)
        }
    }

    /// Stores a new passkey of an existing account, changing the account by `body`, in one transaction.
    public func insertPasskey(
        _ record: PasskeyRecord, options: AccountWriteOptions,
        updating body: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account {
        let now = clock.now
        let events = announcer
        return try await write { connection in
            guard try Self.passkey(id: record.id, in: connection) == nil else {
                throw AccountStoreError(.credentialTaken)
            }
            guard
                let original = try Self.loadAccount(
                    in: connection, sql: Self.selectAccountByID, [.text(record.uid.rawValue)])
            else { throw AccountStoreError(.notFound, "no account \(record.uid)") }
            let account = try Self.save(
                original, changedBy: body, options: options, events: events, now: now, in: connection)
            try connection.execute(Self.insertPasskeyRow, Self.passkeyValues(record))
            return account
        }
    }

    /// Creates `account` with its first passkey (a passwordless sign-up).
    public func createPasskeyAccount(
        _ account: Account, passkey record: PasskeyRecord, options: AccountWriteOptions
    ) async throws {
        var amended = account
        let options = options.amending(&amended).announcing(announcer, uid: account.id)
        let account = amended
        let now = clock.now
        try await write { connection in
            guard try Self.passkey(id: record.id, in: connection) == nil else {
                throw AccountStoreError(.credentialTaken)
            }
            try connection.execute(Self.insertAccount, Self.accountValues(account))
            try connection.execute(Self.insertPasskeyRow, Self.passkeyValues(record))
            try Self.applyWriteOptions(options, uid: account.id, now: now, in: connection)
        }
    }

    /// Finishes a sign-in with the passkey, while its counter is still `previousSignCount`.
    public func completePasskeySignIn(
        id: String, signCount: Int64, previousSignCount: Int64, backedUp: Bool, at date: Date,
        options: AccountWriteOptions
    ) async throws -> Account {
        try await write { connection in
            guard let passkey = try Self.passkey(id: id, in: connection),
                try connection.execute(
                    "UPDATE passkeys SET sign_count = ?, backed_up = ?, last_used_at = ? "
                        + "WHERE id = ? AND sign_count = ?",
                    [
                        .integer(signCount), .integer(backedUp ? 1 : 0), Self.millis(date), .text(id),
                        .integer(previousSignCount),
                    ]) > 0
            else { throw AccountStoreError(.alreadyUsed, "the passkey is gone or its counter moved") }
            let uid = passkey.uid
            guard var account = try Self.loadAccount(in: connection, sql: Self.selectAccountByID, [.text(uid.rawValue)])
            else { throw AccountStoreError(.notFound, "no account \(uid)") }
            guard !account.disabled else { throw AccountStoreError(.disabled) }
            try connection.execute(
                "UPDATE accounts SET last_sign_in_at = ? WHERE uid = ?", [Self.millis(date), .text(uid.rawValue)])
            account.lastSignInAt = Self.date(date.epochMilliseconds)
            try Self.applyWriteOptions(options, uid: uid, now: date, in: connection)
            return account
        }
    }

    /// Renames the passkey `id` of `uid`.
    public func renamePasskey(id: String, uid: AccountID, name: String?) async throws -> PasskeyRecord? {
        try await write { connection in
            guard
                try connection.execute(
                    "UPDATE passkeys SET name = ? WHERE id = ? AND uid = ?",
                    [Self.optional(name), .text(id), .text(uid.rawValue)]) > 0
            else { return nil }
            return try Self.passkey(id: id, in: connection)
        }
    }

    /// Removes the passkey `id` of `uid`.
    public func deletePasskey(id: String, uid: AccountID, recording: [AuditEvent]) async throws -> Bool {
        let announced = AccountWriteOptions(recording: recording).announcing(announcer, uid: uid)
        let now = clock.now
        return try await write { connection in
            guard
                try connection.execute(
                    "DELETE FROM passkeys WHERE id = ? AND uid = ?", [.text(id), .text(uid.rawValue)])
                    > 0
            else { return false }
            try Self.applyWriteOptions(announced, uid: uid, now: now, in: connection)
            return true
        }
    }

    // MARK: - Rows and statements

    /// Removes the account's passkeys and its registration challenges (with its second factors).
    static func removePasskeys(of uid: AccountID, in connection: any SQLConnection) throws {
        try connection.execute("DELETE FROM passkeys WHERE uid = ?", [.text(uid.rawValue)])
        try connection.execute("DELETE FROM passkey_challenges WHERE uid = ?", [.text(uid.rawValue)])
    }

    static func passkey(id: String, in connection: any SQLConnection) throws -> PasskeyRecord? {
        try connection.query("SELECT \(passkeyColumns) FROM passkeys WHERE id = ?", [.text(id)]).first.map(passkey)
    }

    static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }

    static func passkey(_ row: SQLRow) throws -> PasskeyRecord {
        guard let publicKey = Base64URL.decode(try required(row, "public_key")) else {
            throw AccountStoreError(.unavailable, "a passkey's stored public key is not base64url")
        }
        let transports: String = try required(row, "transports")
        return PasskeyRecord(
            id: try required(row, "id"), uid: AccountID(try required(row, "uid")),
            userHandle: try required(row, "user_handle"), publicKey: publicKey,
            algorithm: try requiredInteger(row, "algorithm"), signCount: try requiredInteger(row, "sign_count"),
            transports: transports.split(separator: ",").map(String.init), name: row.text("name"),
            createdAt: date(try requiredInteger(row, "created_at")), lastUsedAt: row.integer("last_used_at").map(date),
            backupEligible: try requiredInteger(row, "backup_eligible") != 0,
            backedUp: try requiredInteger(row, "backed_up") != 0)
    }

    static func passkeyValues(_ record: PasskeyRecord) -> [SQLValue] {
        [
            .text(record.id), .text(record.uid.rawValue), .text(record.userHandle),
            .text(Base64URL.encode(record.publicKey)), .integer(record.algorithm), .integer(record.signCount),
            .text(record.transports.joined(separator: ",")), optional(record.name), millis(record.createdAt),
            record.lastUsedAt.map(millis) ?? .null, .integer(record.backupEligible ? 1 : 0),
            .integer(record.backedUp ? 1 : 0),
        ]
    }

    static func passkeyChallenge(_ row: SQLRow) throws -> PasskeyChallengeRecord {
        guard let ceremony = PasskeyCeremony(rawValue: try required(row, "ceremony")) else {
            throw AccountStoreError(.unavailable, "a passkey challenge of an unknown ceremony")
        }
        return PasskeyChallengeRecord(
            challengeHash: try required(row, "challenge_hash"), ceremony: ceremony,
            uid: row.text("uid").map { AccountID($0) }, userHandle: row.text("user_handle"), email: row.text("email"),
            displayName: row.text("display_name"), createdAt: date(try requiredInteger(row, "created_at")),
            expiresAt: date(try requiredInteger(row, "expires_at")))
    }
}
