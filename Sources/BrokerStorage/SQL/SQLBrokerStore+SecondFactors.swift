public import BrokerModel
public import Foundation

/// ``SecondFactorStore`` over SQL (schema version 17).
extension SQLBrokerStore {
    static let secondFactorColumns =
        "id, uid, type, display_name, secret, created_at, enrolled_at, last_used_step"
    static let insertSecondFactorRow =
        "INSERT INTO second_factors (\(secondFactorColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    static let pendingSignInColumns =
        "credential_hash, uid, sign_in_provider, surface, created_at, expires_at, failures"

    /// The account's enrolled factors, oldest first.
    public func secondFactors(uid: AccountID) async throws -> [SecondFactorRecord] {
        try await read { connection in
            try connection.query(
                "SELECT \(Self.secondFactorColumns) FROM second_factors WHERE uid = ? AND enrolled_at IS NOT NULL "
                    + "ORDER BY created_at, id", [.text(uid.rawValue)]
            ).map(Self.secondFactor)
        }
    }

    /// The factor or pending enrolment `id` of `uid`.
    public func secondFactor(id: String, uid: AccountID) async throws -> SecondFactorRecord? {
        try await read { connection in try Self.secondFactor(id: id, uid: uid, in: connection) }
    }

    /// The account's unused recovery codes.
    public func recoveryCodesLeft(uid: AccountID) async throws -> Int {
        try await read { connection in
            Int(
                try connection.query(
                    "SELECT COUNT(*) AS n FROM recovery_codes WHERE uid = ?", [.text(uid.rawValue)]
                ).first?.integer("n") ?? 0)
        }
    }

    /// Stores a pending enrolment, forgetting the account's older pending ones.
    public func insertSecondFactor(_ record: SecondFactorRecord, purgeBefore: Date) async throws {
        try await write { connection in
            try connection.execute(
                "DELETE FROM second_factors WHERE uid = ? AND enrolled_at IS NULL AND created_at < ?",
                [.text(record.uid.rawValue), Self.millis(purgeBefore)])
            try connection.execute(Self.insertSecondFactorRow, Self.secondFactorValues(record))
        }
    }

    /// Verifies the pending enrolment and replaces the recovery codes, in one transaction.
    public func confirmSecondFactor(
        id: String, uid: AccountID, displayName: String?, step: Int64, at date: Date, madeAfter: Date,
        recoveryCodeHashes: [String], recording: [AuditEvent]
    ) async throws -> SecondFactorRecord? {
        let announced = AccountWriteOptions(recording: recording).announcing(announcer, uid: uid)
        return try await write { connection in
            let updated = try connection.execute(
                "UPDATE second_factors SET enrolled_at = ?, last_used_step = ?, display_name = ? "
                    + "WHERE id = ? AND uid = ? AND enrolled_at IS NULL AND created_at > ?",
                [
                    Self.millis(date), .integer(step), displayName.map(SQLValue.text) ?? .null, .text(id),
                    .text(uid.rawValue), Self.millis(madeAfter),
                ])
            guard updated > 0 else { return nil }
            try Self.replaceRecoveryCodes(uid: uid, hashes: recoveryCodeHashes, at: date, in: connection)
            try Self.applyWriteOptions(announced, uid: uid, now: date, in: connection)
            return try Self.secondFactor(id: id, uid: uid, in: connection)
        }
    }

    /// Removes the enrolled factor, and the recovery codes with the last one.
    public func deleteSecondFactor(id: String, uid: AccountID, recording: [AuditEvent]) async throws -> Bool {
        let now = clock.now
        let announced = AccountWriteOptions(recording: recording).announcing(announcer, uid: uid)
        return try await write { connection in
            let deleted = try connection.execute(
                "DELETE FROM second_factors WHERE id = ? AND uid = ? AND enrolled_at IS NOT NULL",
                [.text(id), .text(uid.rawValue)])
            guard deleted > 0 else { return false }
            if try Self.enrolledFactorCount(uid: uid, in: connection) == 0 {
                try connection.execute("DELETE FROM recovery_codes WHERE uid = ?", [.text(uid.rawValue)])
            }
            try Self.applyWriteOptions(announced, uid: uid, now: now, in: connection)
            return true
        }
    }

    /// Replaces the recovery codes of an account with an enrolled factor.
    public func replaceRecoveryCodes(uid: AccountID, hashes: [String], recording: [AuditEvent]) async throws -> Bool {
        let now = clock.now
        let announced = AccountWriteOptions(recording: recording).announcing(announcer, uid: uid)
        return try await write { connection in
            guard try Self.enrolledFactorCount(uid: uid, in: connection) > 0 else { return false }
            try Self.replaceRecoveryCodes(uid: uid, hashes: hashes, at: now, in: connection)
            try Self.applyWriteOptions(announced, uid: uid, now: now, in: connection)
            return true
        }
    }

    /// The enrolled factors and unused recovery codes of each of `uids` that has a factor, in one read.
    public func secondFactorSets(of uids: [AccountID]) async throws -> [AccountID: AccountSecondFactors] {
        try await read { connection in
            var sets: [AccountID: AccountSecondFactors] = [:]
            for uid in uids {
                let factors = try connection.query(
                    "SELECT \(Self.secondFactorColumns) FROM second_factors WHERE uid = ? AND enrolled_at IS NOT NULL "
                        + "ORDER BY created_at, id", [.text(uid.rawValue)]
                ).map(Self.secondFactor)
                guard !factors.isEmpty else { continue }
                let hashes = try connection.query(
                    "SELECT code_hash FROM recovery_codes WHERE uid = ? ORDER BY code_hash", [.text(uid.rawValue)]
                ).compactMap { $0.text("code_hash") }
                sets[uid] = AccountSecondFactors(factors: factors, recoveryCodeHashes: hashes)
            }
            return sets
        }
    }

    /// Stores an imported account's factors and recovery codes (inside the import's transaction).
    static func insertSecondFactors(
        _ set: AccountSecondFactors, uid: AccountID, at date: Date, in connection: any SQLConnection
    ) throws {
        for var factor in set.factors {
            factor.uid = uid
            try connection.execute(insertSecondFactorRow, secondFactorValues(factor))
        }
        try replaceRecoveryCodes(uid: uid, hashes: set.recoveryCodeHashes, at: date, in: connection)
    }

    /// Stores a pending sign-in, forgetting expired ones, with the first factor's single-use mark.
    public func insertPendingSignIn(_ record: PendingSignInRecord, consuming mark: SingleUseMark?) async throws {
        let now = clock.now
        try await write { connection in
            try Self.consume(mark, now: now, in: connection)
            try connection.execute(
                "DELETE FROM mfa_pending_sign_ins WHERE expires_at < ?", [Self.millis(record.createdAt)])
            try connection.execute(
                "INSERT INTO mfa_pending_sign_ins (\(Self.pendingSignInColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(record.credentialHash), .text(record.uid.rawValue), .text(record.signInProvider),
                    .text(record.surface.rawValue), Self.millis(record.createdAt), Self.millis(record.expiresAt),
                    .integer(Int64(record.failures)),
                ])
        }
    }

    /// The unexpired pending sign-in with this hash.
    public func pendingSignIn(hash: String, at date: Date) async throws -> PendingSignInRecord? {
        try await read { connection in try Self.pendingSignIn(hash: hash, at: date, in: connection) }
    }

    /// Counts a wrong code; the pending sign-in dies at `limit`.
    public func recordPendingFailure(hash: String, limit: Int) async throws -> Int? {
        try await write { connection in
            let rows = try connection.query(
                "SELECT failures FROM mfa_pending_sign_ins WHERE credential_hash = ?", [.text(hash)])
            guard let failures = rows.first?.integer("failures") else { return nil }
            let count = Int(failures) + 1
            if count >= limit {
                try connection.execute("DELETE FROM mfa_pending_sign_ins WHERE credential_hash = ?", [.text(hash)])
            } else {
                // Conditional on the count read, so that concurrent wrong codes are each counted.
                let updated = try connection.execute(
                    "UPDATE mfa_pending_sign_ins SET failures = ? WHERE credential_hash = ? AND failures = ?",
                    [.integer(Int64(count)), .text(hash), .integer(failures)])
                guard updated > 0 else { throw AccountStoreError(.unavailable, "a concurrent wrong code") }
            }
            return count
        }
    }

    /// Finishes the pending sign-in with `proof`, in one transaction that also clears the lockout.
    public func completeSecondFactor(
        pendingHash: String, proof: SecondFactorProof, at date: Date, options: AccountWriteOptions,
        clearingFailuresOf lockoutKey: String?, _ change: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account {
        let events = announcer
        return try await write { connection in
            guard let pending = try Self.pendingSignIn(hash: pendingHash, at: date, in: connection),
                try connection.execute(
                    "DELETE FROM mfa_pending_sign_ins WHERE credential_hash = ?", [.text(pendingHash)]) > 0
            else { throw AccountStoreError(.notFound, "the pending sign-in is unknown, expired or used") }
            let uid = pending.uid
            switch proof {
            case .totp(let factorID, let step):
                let used = try connection.execute(
                    "UPDATE second_factors SET last_used_step = ? WHERE id = ? AND uid = ? "
                        + "AND enrolled_at IS NOT NULL AND (last_used_step IS NULL OR last_used_step < ?)",
                    [.integer(step), .text(factorID), .text(uid.rawValue), .integer(step)])
                guard used > 0 else { throw AccountStoreError(.stale, "the factor is gone or the code used") }
            case .recoveryCode(let hash):
                let used = try connection.execute(
                    "DELETE FROM recovery_codes WHERE uid = ? AND code_hash = ?", [.text(uid.rawValue), .text(hash)])
                guard used > 0 else { throw AccountStoreError(.stale, "no such unused recovery code") }
            }
            guard let account = try Self.loadAccount(in: connection, sql: Self.selectAccountByID, [.text(uid.rawValue)])
            else { throw AccountStoreError(.notFound, "no account \(uid)") }
            if let lockoutKey {
                try connection.execute("DELETE FROM password_failures WHERE email_key = ?", [.text(lockoutKey)])
            }
            return try Self.save(
                account,
                changedBy: { account in
                    guard !account.disabled else { throw AccountStoreError(.disabled) }
                    account.lastSignInAt = date
                    try change(&account)
                }, options: options, events: events, now: date, in: connection)
        }
    }

    // MARK: - Rows and statements

    /// Removes the account's factors, recovery codes and pending sign-ins (``AccountWriteOptions/removesSecondFactors``
    /// and a deletion).
    static func removeSecondFactors(of uid: AccountID, in connection: any SQLConnection) throws {
        for table in ["second_factors", "recovery_codes", "mfa_pending_sign_ins"] {
            try connection.execute("DELETE FROM \(table) WHERE uid = ?", [.text(uid.rawValue)])
        }
    }

    static func secondFactor(id: String, uid: AccountID, in connection: any SQLConnection) throws -> SecondFactorRecord?
    {
        try connection.query(
            "SELECT \(secondFactorColumns) FROM second_factors WHERE id = ? AND uid = ?",
            [.text(id), .text(uid.rawValue)]
        ).first.map(secondFactor)
    }

    static func enrolledFactorCount(uid: AccountID, in connection: any SQLConnection) throws -> Int64 {
        try connection.query(
            "SELECT COUNT(*) AS n FROM second_factors WHERE uid = ? AND enrolled_at IS NOT NULL", [.text(uid.rawValue)]
        ).first?.integer("n") ?? 0
    }

    static func replaceRecoveryCodes(
        uid: AccountID, hashes: [String], at date: Date, in connection: any SQLConnection
    ) throws {
        try connection.execute("DELETE FROM recovery_codes WHERE uid = ?", [.text(uid.rawValue)])
        for hash in hashes {
            try connection.execute(
                "INSERT INTO recovery_codes (uid, code_hash, created_at) VALUES (?, ?, ?)",
                [.text(uid.rawValue), .text(hash), millis(date)])
        }
    }

    static func pendingSignIn(
        hash: String, at date: Date, in connection: any SQLConnection
    ) throws
        -> PendingSignInRecord?
    {
        try connection.query(
            "SELECT \(pendingSignInColumns) FROM mfa_pending_sign_ins WHERE credential_hash = ? AND expires_at >= ?",
            [.text(hash), millis(date)]
        ).first.map { row in
            PendingSignInRecord(
                credentialHash: try required(row, "credential_hash"), uid: AccountID(try required(row, "uid")),
                signInProvider: try required(row, "sign_in_provider"),
                surface: SessionSurface(rawValue: try required(row, "surface")),
                createdAt: self.date(try requiredInteger(row, "created_at")),
                expiresAt: self.date(try requiredInteger(row, "expires_at")),
                failures: Int(try requiredInteger(row, "failures")))
        }
    }

    static func secondFactor(_ row: SQLRow) throws -> SecondFactorRecord {
        SecondFactorRecord(
            id: try required(row, "id"), uid: AccountID(try required(row, "uid")), type: try required(row, "type"),
            displayName: row.text("display_name"), sealedSecret: try required(row, "secret"),
            createdAt: date(try requiredInteger(row, "created_at")), enrolledAt: row.integer("enrolled_at").map(date),
            lastUsedStep: row.integer("last_used_step"))
    }

    static func secondFactorValues(_ record: SecondFactorRecord) -> [SQLValue] {
        [
            .text(record.id), .text(record.uid.rawValue), .text(record.type),
            record.displayName.map(SQLValue.text) ?? .null, .text(record.sealedSecret), millis(record.createdAt),
            record.enrolledAt.map(millis) ?? .null, record.lastUsedStep.map(SQLValue.integer) ?? .null,
        ]
    }
}
