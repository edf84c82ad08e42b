public import BrokerModel
public import Foundation

/// The ``BrokerStore`` over any ``SQLDatabase`` driver (SQLite today, PostgreSQL through a second driver).
///
/// Every change runs in one write transaction of the database; every `SQLError.uniqueViolation` surfaces as
/// `AccountStoreError(.alreadyExists)`, and `busy` or `unavailable` as `AccountStoreError(.unavailable)`, with
/// the whole transaction rolled back. Times are stored in epoch milliseconds, so dates come back rounded to
/// the millisecond.
public final class SQLBrokerStore: BrokerStore {
    /// The database behind the store.
    public let database: any SQLDatabase
    /// The clock that decides when a single-use mark has expired and stamps `revokeSessions`.
    let clock: any Clock
    /// What announces the changes (``EventAnnouncing``); nil: nothing.
    public let announcer: (any ChangeAnnouncing)?

    /// Opens the store and brings the database's schema up to ``BrokerSchema``'s latest version; the events of its
    /// changes go where `events` routes them.
    public init(
        database: any SQLDatabase, clock: any Clock = SystemClock(), events: (any ChangeAnnouncing)? = nil
    ) async throws {
        self.database = database
        self.clock = clock
        self.announcer = events
        try await Self.translatingErrors {
            try await database.migrate(BrokerSchema.migrations(for: database.dialect))
        }
    }

    /// The account with uid `id`, with its identities.
    public func account(id: AccountID) async throws -> Account? {
        try await read { connection in
            try Self.loadAccount(in: connection, sql: Self.selectAccountByID, [.text(id.rawValue)])
        }
    }

    /// The account the identity (provider, subject) is linked to.
    public func account(provider: ProviderID, subject: String) async throws -> Account? {
        try await read { connection in
            try Self.loadLinkedAccount(in: connection, provider: provider, subject: subject)
        }
    }

    /// The account holding `email`, compared case-insensitively.
    public func account(email: String) async throws -> Account? {
        try await read { connection in
            try Self.loadAccount(in: connection, sql: Self.selectAccountByEmail, [.text(Self.emailKey(email))])
        }
    }

    /// Stores a new account with its identities, consuming `options.consuming` in the same transaction.
    /// A taken uid, email or identity throws `alreadyExists`, a mark seen before `alreadyUsed`; either stores nothing.
    public func create(_ account: Account, options: AccountWriteOptions) async throws {
        var amended = account
        let options = options.amending(&amended).announcing(announcer, uid: account.id)
        let account = amended
        let now = clock.now
        try Self.requireDistinctIdentities(account.identities)
        try await write { connection in
            try Self.checkCustomToken(options, uid: account.id, in: connection)
            try Self.consume(options.consuming, now: now, in: connection)
            try connection.execute(Self.insertAccount, Self.accountValues(account))
            for identity in account.identities {
                try connection.execute(Self.insertIdentity, Self.identityValues(identity, uid: account.id))
            }
            try Self.applyWriteOptions(options, uid: account.id, now: now, in: connection)
        }
    }

    /// Loads the account, runs `body` on it and saves the result, all in one write transaction: identities
    /// `body` removed are unlinked, added ones linked (one linked elsewhere throws `alreadyExists`), the mark
    /// is consumed and sessions revoked as `options` ask. If anything throws, nothing is changed.
    /// Only the columns `body` changed are written (a sign-in writes `last_sign_in_at` alone, leaving the email
    /// index untouched), and the account is returned as a load would return it, without loading it again.
    /// A change of the password hash deletes the account's outstanding reset codes in the same transaction.
    /// Changing the uid is refused with `AccountStoreError(.notFound)`: the uid names the stored account.
    public func update(
        id: AccountID, options: AccountWriteOptions, _ body: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account {
        let now = clock.now
        let events = announcer
        return try await write { connection in
            guard let original = try Self.loadAccount(in: connection, sql: Self.selectAccountByID, [.text(id.rawValue)])
            else { throw AccountStoreError(.notFound, "no account \(id)") }
            return try Self.save(original, changedBy: body, options: options, events: events, now: now, in: connection)
        }
    }

    /// ``update(id:options:_:)`` for the account the identity is linked to; nil, writing nothing, if none.
    public func update(
        linkedTo provider: ProviderID, subject: String, options: AccountWriteOptions,
        _ body: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account? {
        let now = clock.now
        let events = announcer
        return try await write { connection in
            guard
                let original = try Self.loadLinkedAccount(in: connection, provider: provider, subject: subject)
            else { return nil }
            return try Self.save(original, changedBy: body, options: options, events: events, now: now, in: connection)
        }
    }

    /// The body of an update inside its transaction: runs `body` on `original` and saves what it changed.
    static func save(
        _ original: Account, changedBy body: (inout Account) throws -> Void, options: AccountWriteOptions,
        events: (any ChangeAnnouncing)?, now: Date, in connection: any SQLConnection
    ) throws -> Account {
        let id = original.id
        try checkCustomToken(options, uid: id, in: connection)
        var changed = original
        try body(&changed)
        guard changed.id == original.id else {
            throw AccountStoreError(.notFound, "update(id: \(id)) must not change the uid to \(changed.id)")
        }
        let options = options.amending(&changed).announcing(events, uid: id)
        try requireDistinctIdentities(changed.identities)
        if options.revokeSessions { changed.tokensValidAfter = validAfter(now) }
        try consume(options.consuming, now: now, in: connection)
        let values = try saveColumns(from: original, to: changed, in: connection)
        if changed.password?.hash != original.password?.hash {
            // A reset code is bound to the password it was issued against (contract section 9).
            try connection.execute(
                deleteResetCodesOfAccount, [.text(id.rawValue), .text(MailAction.resetPassword.rawValue)])
        }
        try saveIdentities(from: original.identities, to: changed.identities, uid: id, in: connection)
        try applyWriteOptions(options, uid: id, now: now, in: connection)
        return try asStored(changed, values: values)
    }

    /// Deletes the account, its identities and its refresh tokens, consuming `options.consuming`, recording
    /// `options.recording`, queuing `options.enqueuing` and cutting off the uid's custom tokens in the same
    /// transaction; `notFound` (and no change) if absent.
    public func delete(id: AccountID, options: AccountWriteOptions) async throws {
        try await delete(id: id, options: options, enqueuingFor: { _ in [] })
    }

    /// ``delete(id:options:)`` also queuing the jobs `jobs` derives from the account, loaded inside the
    /// deletion's transaction.
    public func delete(
        id: AccountID, options: AccountWriteOptions,
        enqueuingFor jobs: @escaping @Sendable (Account) throws -> [OutboxJob]
    ) async throws {
        let now = clock.now
        let options = options.announcing(announcer, uid: id)
        try await write { connection in
            let uid = SQLValue.text(id.rawValue)
            guard let account = try Self.loadAccount(in: connection, sql: Self.selectAccountByID, [uid]) else {
                throw AccountStoreError(.notFound, "no account \(id)")
            }
            try Self.consume(options.consuming, now: now, in: connection)
            let enqueuing = options.enqueuing + (try jobs(account))
            try connection.execute("DELETE FROM refresh_tokens WHERE uid = ?", [uid])
            try connection.execute("DELETE FROM identities WHERE uid = ?", [uid])
            guard try connection.execute("DELETE FROM accounts WHERE uid = ?", [uid]) > 0 else {
                throw AccountStoreError(.notFound, "no account \(id)")
            }
            let tail = AccountWriteOptions(
                recording: options.recording, enqueuing: enqueuing, cutsOffCustomTokens: true,
                removesSecondFactors: true)
            try Self.applyWriteOptions(tail, uid: id, now: now, in: connection)
        }
    }

    /// The uid's custom-token cutoff, if one was set (kept after the account is deleted).
    public func customTokenCutoff(uid: AccountID) async throws -> Date? {
        try await read { connection in try Self.customTokenCutoff(of: uid, in: connection) }
    }

    /// Records `mark` alone in its own transaction; `alreadyUsed` if it was recorded before.
    public func consume(_ mark: SingleUseMark) async throws {
        let now = clock.now
        try await write { connection in try Self.consume(mark, now: now, in: connection) }
    }
}
