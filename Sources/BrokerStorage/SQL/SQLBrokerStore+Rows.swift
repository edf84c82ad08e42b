import BrokerModel
import Foundation

/// The SQL text, the mapping between rows and values, and the error translation of ``SQLBrokerStore``.
extension SQLBrokerStore {
    // MARK: - Statements

    static let accountColumns =
        "a.uid, a.email, a.email_verified, a.display_name, a.photo_url, a.disabled, a.created_at, a.last_sign_in_at, a.password_hash, a.custom_claims, a.password_derived, a.tokens_valid_after, a.origin, a.imported_at, a.import_file, a.import_index, a.import_identities, a.disabled_by, a.phone_number, "
        + "a.anonymous"
    static let selectAccountByID = "SELECT \(accountColumns) FROM accounts a WHERE a.uid = ?"
    static let selectAccountByEmail = "SELECT \(accountColumns) FROM accounts a WHERE a.email_key = ?"
    static let selectAccountByPhoneNumber = "SELECT \(accountColumns) FROM accounts a WHERE a.phone_number = ?"
    static let selectIdentities =
        "SELECT provider, subject, email, linked_at, provider_token, credential_kind FROM identities WHERE uid = ? "
        + "ORDER BY linked_at, provider, subject"
    /// The columns of ``accountValues(_:)``, in its order.
    static let accountColumnNames = [
        "uid", "email", "email_key", "email_verified", "display_name", "photo_url", "disabled", "created_at",
        "last_sign_in_at", "password_hash", "custom_claims", "password_derived", "tokens_valid_after", "origin",
        "imported_at", "import_file", "import_index", "import_identities", "disabled_by", "phone_number",
        "anonymous",
    ]
    /// ``accountColumnNames``, for the rows of ``asStored(_:values:)``.
    static let accountColumnLayout = SQLColumns(accountColumnNames)
    static let insertAccount =
        "INSERT INTO accounts (\(accountColumnNames.joined(separator: ", "))) VALUES ("
        + Array(repeating: "?", count: accountColumnNames.count).joined(separator: ", ") + ")"
    static let insertIdentity =
        "INSERT INTO identities (provider, subject, uid, email, linked_at, provider_token, credential_kind) "
        + "VALUES (?, ?, ?, ?, ?, ?, ?)"
    static let updateIdentity =
        "UPDATE identities SET email = ?, linked_at = ?, provider_token = ?, credential_kind = ? "
        + "WHERE provider = ? AND subject = ?"
    static let deleteIdentity = "DELETE FROM identities WHERE provider = ? AND subject = ?"
    static let purgeExpiredMarks = "DELETE FROM used_marks WHERE expires_at < ?"
    static let insertMark = "INSERT INTO used_marks (key, expires_at) VALUES (?, ?)"
    static let revokeTokensOfAccount = "UPDATE refresh_tokens SET revoked_at = ? WHERE uid = ? AND revoked_at IS NULL"
    static let invalidateIDTokensOfAccount = "UPDATE accounts SET tokens_valid_after = ? WHERE uid = ?"

    /// The instant from which ID tokens stay valid after a revocation at `now`: its whole second, since a
    /// token's `iat` has whole seconds (a token minted later in that second must keep working).
    static func validAfter(_ now: Date) -> Date {
        Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
    }

    /// Cuts off the uid's custom tokens, revokes the account's sessions and earlier ID tokens, stores `grant`'s
    /// session and appends the audit events, as `options` ask: the tail of every account write.
    static func applyWriteOptions(
        _ options: AccountWriteOptions, uid: AccountID, now: Date, in connection: any SQLConnection
    ) throws {
        if options.cutsOffCustomTokens { try cutOffCustomTokens(of: uid, now: now, in: connection) }
        if options.removesSecondFactors {
            try removeSecondFactors(of: uid, in: connection)
            try removePasskeys(of: uid, in: connection)
        }
        if options.revokeSessions {
            try connection.execute(revokeTokensOfAccount, [millis(now), .text(uid.rawValue)])
            try connection.execute(invalidateIDTokensOfAccount, [millis(validAfter(now)), .text(uid.rawValue)])
        }
        if let grant = options.issuing {
            try connection.execute(insertToken, tokenValues(grant.record(for: uid)))
        }
        for var event in options.recording {
            if event.uid == nil { event.uid = uid }
            try connection.execute(insertAuditEvent, auditEventValues(event))
        }
        for var job in options.enqueuing {
            if job.uid == nil { job.uid = uid }
            try connection.execute(insertOutboxJob, outboxJobValues(job))
        }
        for code in options.storingCodes { try insert(code, in: connection) }
        if let key = options.clearingLoginFailures {
            try connection.execute("DELETE FROM password_failures WHERE email_key = ?", [.text(key)])
        }
    }

    // MARK: - Custom-token cutoffs

    /// The uid's custom-token cutoff, read inside a transaction.
    static func customTokenCutoff(of uid: AccountID, in connection: any SQLConnection) throws -> Date? {
        try connection.query("SELECT cut_off_at FROM custom_token_cutoffs WHERE uid = ?", [.text(uid.rawValue)])
            .first?.integer("cut_off_at").map(date)
    }

    /// Sets the uid's cutoff to `now`'s second (never moving it back).
    static func cutOffCustomTokens(of uid: AccountID, now: Date, in connection: any SQLConnection) throws {
        let cutoff = AccountWriteOptions.customTokenCutoff(at: now)
        guard let current = try customTokenCutoff(of: uid, in: connection) else {
            try connection.execute(
                "INSERT INTO custom_token_cutoffs (uid, cut_off_at) VALUES (?, ?)",
                [.text(uid.rawValue), millis(cutoff)])
            return
        }
        guard current < cutoff else { return }
        try connection.execute(
            "UPDATE custom_token_cutoffs SET cut_off_at = ? WHERE uid = ?", [millis(cutoff), .text(uid.rawValue)])
    }

    /// Refuses a custom-token sign-in (`options.customTokenIssuedAt`) whose token the uid's cutoff covers.
    static func checkCustomToken(
        _ options: AccountWriteOptions, uid: AccountID, in connection: any SQLConnection
    ) throws {
        guard let issuedAt = options.customTokenIssuedAt else { return }
        if AccountWriteOptions.isCutOff(issuedAt: issuedAt, by: try customTokenCutoff(of: uid, in: connection)) {
            throw AccountStoreError(.cutOff, "custom token of \(uid) minted before its cutoff")
        }
    }

    // MARK: - Transactions

    /// `database.write`, with SQL errors translated to ``AccountStoreError``.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await Self.translatingErrors { try await self.database.write(body) }
    }

    /// `database.read`, with SQL errors translated to ``AccountStoreError``.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await Self.translatingErrors { try await self.database.read(body) }
    }

    /// Runs `operation`, turning uniqueness violations into `alreadyExists` and busy or unreachable storage
    /// into `unavailable`. Other SQL errors (a bug, a corrupt row) pass through unchanged.
    static func translatingErrors<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as SQLError {
            switch error.code {
            case .uniqueViolation: throw AccountStoreError(.alreadyExists, error.message)
            case .busy, .unavailable: throw AccountStoreError(.unavailable, error.message)
            case .other: throw error
            }
        }
    }

    // MARK: - Accounts

    /// The account the query `sql` selects (``accountColumns``), with its identities.
    static func loadAccount(in connection: any SQLConnection, sql: String, _ binds: [SQLValue]) throws -> Account? {
        guard let row = try connection.query(sql, binds).first else { return nil }
        var account = try decodeAccount(row)
        account.identities = try connection.query(selectIdentities, [.text(account.id.rawValue)]).map(decodeIdentity)
        return account
    }

    static func decodeAccount(_ row: SQLRow) throws -> Account {
        Account(
            id: AccountID(try required(row, "uid")),
            email: row.text("email"),
            emailVerified: row.integer("email_verified") == 1,
            displayName: row.text("display_name"),
            photoURL: row.text("photo_url"),
            disabled: row.integer("disabled") == 1,
            createdAt: date(try requiredInteger(row, "created_at")),
            lastSignInAt: row.integer("last_sign_in_at").map(date),
            password: row.text("password_hash").map {
                PasswordCredential(hash: $0, isDerived: row.integer("password_derived") == 1)
            },
            customClaims: row.text("custom_claims"),
            tokensValidAfter: row.integer("tokens_valid_after").map(date),
            origin: row.text("origin").map(AccountOrigin.init(rawValue:)),
            imported: try decodeImport(row),
            disabledBy: row.text("disabled_by").map(ProviderID.init(rawValue:)),
            phoneNumber: row.text("phone_number"),
            isAnonymous: row.integer("anonymous") == 1)
    }

    /// The values of ``insertAccount``.
    static func accountValues(_ account: Account) -> [SQLValue] {
        [
            .text(account.id.rawValue), optionalText(account.email), optionalText(account.email.map(emailKey)),
            boolean(account.emailVerified), optionalText(account.displayName), optionalText(account.photoURL),
            boolean(account.disabled), millis(account.createdAt), account.lastSignInAt.map(millis) ?? .null,
            optionalText(account.password?.hash), optionalText(account.customClaims), boolean(account.password?.isDerived == true),
            account.tokensValidAfter.map(millis) ?? .null, optionalText(account.origin?.rawValue),
            account.imported.map { millis($0.importedAt) } ?? .null, optionalText(account.imported?.file),
            account.imported.map { .integer(Int64($0.index)) } ?? .null,
            optionalText(account.imported.map { importIdentitiesText($0.otherIdentities) }),
            optionalText(account.disabledBy?.rawValue), optionalText(account.phoneNumber),
            boolean(account.isAnonymous),
        ]
    }

    /// Writes the columns whose values differ between `original` and `changed` (the uid, first, never does),
    /// and nothing when none do; returns `changed`'s ``accountValues(_:)``.
    @discardableResult
    static func saveColumns(
        from original: Account, to changed: Account, in connection: any SQLConnection
    ) throws -> [SQLValue] {
        let before = accountValues(original)
        let after = accountValues(changed)
        let differing = after.indices.dropFirst().filter { before[$0] != after[$0] }
        guard !differing.isEmpty else { return after }
        let sql =
            differing.count == 1
            ? updateAccountColumn[differing[0]]
            : "UPDATE accounts SET \(differing.map { "\(accountColumnNames[$0]) = ?" }.joined(separator: ", ")) "
                + "WHERE uid = ?"
        try connection.execute(sql, differing.map { after[$0] } + [after[0]])
        return after
    }

    /// The update of the one column of ``accountColumnNames`` at each index (a sign-in's `last_sign_in_at`).
    static let updateAccountColumn = accountColumnNames.map { "UPDATE accounts SET \($0) = ? WHERE uid = ?" }

    /// `account` exactly as ``loadAccount(in:sql:_:)`` would read it back once stored: dates at whole
    /// milliseconds, identities in the order of ``selectIdentities``. `values`, when given, are `account`'s
    /// ``accountValues(_:)``.
    static func asStored(_ account: Account, values: [SQLValue]? = nil) throws -> Account {
        let values = values ?? accountValues(account)
        var stored = try decodeAccount(SQLRow(layout: accountColumnLayout, values: values))
        stored.identities = try account.identities
            .map { identity in
                let values = identityValues(identity, uid: account.id)
                return try decodeIdentity(SQLRow(layout: identityColumnLayout, values: values))
            }
            .sorted {
                ($0.linkedAt, $0.provider.rawValue, $0.subject) < ($1.linkedAt, $1.provider.rawValue, $1.subject)
            }
        return stored
    }

    // MARK: - Identities

    /// (provider, subject): what makes an identity unique.
    struct IdentityKey: Hashable {
        var provider: ProviderID
        var subject: String

        init(_ identity: Identity) {
            provider = identity.provider
            subject = identity.subject
        }
    }

    /// Refuses an account listing one identity twice, as the unique key would.
    static func requireDistinctIdentities(_ identities: [Identity]) throws {
        guard Set(identities.map(IdentityKey.init)).count == identities.count else {
            throw AccountStoreError(.alreadyExists, "an identity is listed twice")
        }
    }

    /// Unlinks identities missing from `new`, updates changed ones and links added ones.
    static func saveIdentities(
        from old: [Identity], to new: [Identity], uid: AccountID, in connection: any SQLConnection
    ) throws {
        let oldByKey = Dictionary(old.map { (IdentityKey($0), $0) }, uniquingKeysWith: { first, _ in first })
        let newKeys = Set(new.map(IdentityKey.init))
        for identity in old where !newKeys.contains(IdentityKey(identity)) {
            try connection.execute(deleteIdentity, [.text(identity.provider.rawValue), .text(identity.subject)])
        }
        for identity in new {
            if let previous = oldByKey[IdentityKey(identity)] {
                guard previous != identity else { continue }
                try connection.execute(
                    updateIdentity,
                    [
                        optionalText(identity.email), millis(identity.linkedAt), optionalText(identity.providerToken),
                        optionalText(identity.kind?.rawValue), .text(identity.provider.rawValue),
                        .text(identity.subject),
                    ])
            } else {
                try connection.execute(insertIdentity, identityValues(identity, uid: uid))
            }
        }
    }

    static func decodeIdentity(_ row: SQLRow) throws -> Identity {
        try decodeIdentity(row, names: .identities)
    }

    /// The identity in `row`'s columns named by `names`.
    static func decodeIdentity(_ row: SQLRow, names: IdentityColumns) throws -> Identity {
        Identity(
            provider: ProviderID(try required(row, names.provider)),
            subject: try required(row, names.subject),
            email: row.text(names.email),
            linkedAt: date(try requiredInteger(row, names.linkedAt)),
            providerToken: row.text(names.providerToken),
            kind: row.text(names.credentialKind).flatMap(CredentialKind.init(rawValue:)))
    }

    /// The names of the columns ``decodeIdentity(_:names:)`` reads.
    struct IdentityColumns {
        var provider, subject, email, linkedAt, providerToken, credentialKind: String

        /// As the `identities` table names them.
        static let identities = IdentityColumns(
            provider: "provider", subject: "subject", email: "email", linkedAt: "linked_at",
            providerToken: "provider_token", credentialKind: "credential_kind")
    }

    /// The columns of ``identityValues(_:uid:)``, in its order.
    static let identityColumnNames = [
        "provider", "subject", "uid", "email", "linked_at", "provider_token", "credential_kind",
    ]

    /// ``identityColumnNames``, for the rows of ``asStored(_:values:)``.
    static let identityColumnLayout = SQLColumns(identityColumnNames)

    /// The values of ``insertIdentity``.
    static func identityValues(_ identity: Identity, uid: AccountID) -> [SQLValue] {
        [
            .text(identity.provider.rawValue), .text(identity.subject), .text(uid.rawValue),
            optionalText(identity.email), millis(identity.linkedAt), optionalText(identity.providerToken),
            optionalText(identity.kind?.rawValue),
        ]
    }

    // MARK: - Single-use marks

    /// Records `mark` (if any); a mark recorded before and not yet expired fails with `alreadyUsed`.
    /// Expired marks are purged first, so an expired one can be consumed again.
    static func consume(_ mark: SingleUseMark?, now: Date, in connection: any SQLConnection) throws {
        guard let mark else { return }
        try connection.execute(purgeExpiredMarks, [millis(now)])
        do {
            try connection.execute(insertMark, [.text(mark.key), millis(mark.expiresAt)])
        } catch let error as SQLError where error.code == .uniqueViolation {
            throw AccountStoreError(.alreadyUsed, "single-use mark already consumed")
        }
    }

    // MARK: - Values

    /// The lookup key of an email: lower-cased by Swift, identically for every database.
    static func emailKey(_ email: String) -> String { email.lowercased() }

    /// `date` as whole epoch milliseconds (clamped, never a trap: see ``Foundation/Date/epochMilliseconds``).
    static func millis(_ date: Date) -> SQLValue { .integer(date.epochMilliseconds) }

    /// The date `milliseconds` after 1970.
    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func boolean(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }

    static func optionalText(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }

    static func required(_ row: SQLRow, _ column: String) throws -> String {
        guard let value = row.text(column) else { throw SQLError(.other, "column \(column) is NULL") }
        return value
    }

    static func requiredInteger(_ row: SQLRow, _ column: String) throws -> Int64 {
        guard let value = row.integer(column) else { throw SQLError(.other, "column \(column) is NULL") }
        return value
    }
}
