public import BrokerModel
public import Foundation

/// A ``BrokerStore`` in memory, with the same semantics as ``SQLBrokerStore``: for fast unit tests.
///
/// Each operation runs whole on the actor, so it is as atomic as a SQL transaction: every check is made
/// before anything is changed. Dates are kept at millisecond precision and identities ordered by
/// (linkedAt, provider, subject), as the SQL store returns them.
public actor MemoryBrokerStore: BrokerStore {
    private let clock: any Clock
    var accounts: [AccountID: Account] = [:]
    /// What announces the changes (``EventAnnouncing``); nil: nothing.
    public nonisolated let announcer: (any ChangeAnnouncing)?
    /// (provider, subject) -> uid.
    private var identityOwners: [IdentityKey: AccountID] = [:]
    /// Lower-cased email -> uid.
    private var emailOwners: [String: AccountID] = [:]
    /// Phone number -> uid.
    private var phoneOwners: [String: AccountID] = [:]
    /// Single-use mark key -> expiry.
    var marks: [String: Date] = [:]
    private var tokens: [String: RefreshTokenRecord] = [:]
    /// uid -> the second up to which its custom tokens are cut off (kept after the account is deleted).
    private var customTokenCutoffs: [AccountID: Date] = [:]
    private var keys: [KeyID: StoredSigningKey] = [:]
    /// Lower-cased email -> failed password sign-ins (see `MemoryBrokerStore+LoginAttempts.swift`).
    var loginFailureLog: [String: [Date]] = [:]
    /// The audit log (see `MemoryBrokerStore+Admin.swift`).
    var auditLog: [AuditEvent] = []
    /// The outbox's jobs by id, with their leases (see `MemoryBrokerStore+Outbox.swift`).
    var outbox: [String: LeasedOutboxJob] = [:]
    /// Email flows: codes by hash, and mail requests per address (see `MemoryBrokerStore+EmailActions.swift`).
    var oobCodes: [String: OOBCodeRecord] = [:]
    var mailRequestLog: [String: [Date]] = [:]
    /// The admin console's sessions by hash (see `MemoryBrokerStore+Console.swift`).
    var consoleSessions: [String: ConsoleSessionRecord] = [:]
    /// The OpenID Connect providers managed at run time, by id (see `MemoryBrokerStore+ProviderConfigs.swift`).
    var oidcProviders: [String: StoredOIDCProvider] = [:]
    /// Guests made, by client address (see `MemoryBrokerStore+Admin.swift`).
    var guestCreations: [(address: String, at: Date)] = []
    /// Named leases of periodic jobs: holder and expiry (see `MemoryBrokerStore+Admin.swift`).
    var leases: [String: (holder: String, expiresAt: Date)] = [:]
    /// Second factors by id, recovery-code hashes by uid, pending sign-ins by credential hash (see
    /// `MemoryBrokerStore+SecondFactors.swift`).
    var factors: [String: SecondFactorRecord] = [:]
    var recoveryCodes: [AccountID: Set<String>] = [:]
    var pendingSignIns: [String: PendingSignInRecord] = [:]
    /// Passkeys by credential id, their challenges by hash (see `MemoryBrokerStore+Passkeys.swift`).
    var passkeyRecords: [String: PasskeyRecord] = [:]
    var passkeyChallenges: [String: PasskeyChallengeRecord] = [:]
    /// Every refresh token, for the console's session summaries.
    var allRefreshTokens: [RefreshTokenRecord] { Array(tokens.values) }
    /// Every account, for listings.
    var allAccounts: [Account] { Array(accounts.values) }

    private struct IdentityKey: Hashable {
        var provider: ProviderID
        var subject: String

        init(_ identity: Identity) {
            provider = identity.provider
            subject = identity.subject
        }

        init(provider: ProviderID, subject: String) {
            self.provider = provider
            self.subject = subject
        }
    }

    /// Creates an empty store; `clock` decides when single-use marks expire and stamps `revokeSessions`; the events of
    /// its changes go where `events` routes them.
    public init(clock: any Clock = SystemClock(), events: (any ChangeAnnouncing)? = nil) {
        self.clock = clock
        self.announcer = events
    }

    // MARK: - AccountStore

    /// The account with uid `id`.
    public func account(id: AccountID) -> Account? { accounts[id] }

    /// The account the identity (provider, subject) is linked to.
    public func account(provider: ProviderID, subject: String) -> Account? {
        identityOwners[IdentityKey(provider: provider, subject: subject)].flatMap { accounts[$0] }
    }

    /// The account holding `email`, compared case-insensitively.
    public func account(email: String) -> Account? {
        emailOwners[email.lowercased()].flatMap { accounts[$0] }
    }

    /// The account holding `phoneNumber`.
    public func account(phoneNumber: String) -> Account? {
        phoneOwners[phoneNumber].flatMap { accounts[$0] }
    }

    /// Up to `limit` accounts after `uid`, in uid order (UTF-8 byte order, as the SQL store sorts).
    public func listAccounts(afterUID uid: AccountID?, limit: Int) -> [Account] {
        let after = uid.map { Array($0.rawValue.utf8) }
        return accounts.values
            .filter { account in after.map { $0.lexicographicallyPrecedes(Array(account.id.rawValue.utf8)) } ?? true }
            .sorted { Array($0.id.rawValue.utf8).lexicographicallyPrecedes(Array($1.id.rawValue.utf8)) }
            .prefix(max(0, limit))
            .map { $0 }
    }

    /// Stores a new account with its identities; `alreadyExists` (and nothing stored) when the uid, the
    /// email, the phone number or an identity is taken, or the mark was consumed before.
    public func create(_ account: Account, options: AccountWriteOptions) throws {
        var account = Self.normalized(account)
        let options = options.amending(&account).announcing(announcer, uid: account.id)
        guard accounts[account.id] == nil else { throw AccountStoreError(.alreadyExists, "uid \(account.id)") }
        try checkCustomToken(options, uid: account.id)
        try checkCanSave(account, replacing: nil)
        try checkCanConsume(options.consuming)
        try checkCanEnqueue(options.enqueuing)
        save(account, replacing: nil)
        finish(account.id, options)
    }

    /// Checks and creates each account, all on the actor at once (see ``AccountImporting``).
    public func importAccounts(
        _ batch: [Account], secondFactors: [AccountID: AccountSecondFactors], record: ImportRecord
    ) throws -> [AccountImportOutcome] {
        // A factor id taken already refuses the batch, as the SQL store's primary key does.
        for account in batch where accounts[account.id] == nil {
            if secondFactors[account.id]?.factors.contains(where: { factors[$0.id] != nil }) == true {
                throw AccountStoreError(.alreadyExists, "a second factor's id is taken")
            }
        }
        for account in batch {
            let keys = account.identities.map(IdentityKey.init)
            guard Set(keys).count == keys.count else {
                throw AccountStoreError(.alreadyExists, "an identity is listed twice")
            }
        }
        return batch.map { account in
            let account = Self.normalized(account)
            if accounts[account.id] != nil { return .unchanged }
            if let email = account.email, emailOwners[email.lowercased()] != nil { return .emailTaken }
            if let phone = account.phoneNumber, phoneOwners[phone] != nil { return .phoneNumberTaken }
            if let taken = account.identities.first(where: { identityOwners[IdentityKey($0)] != nil }) {
                return .identityTaken(taken.provider)
            }
            save(account, replacing: nil)
            if let set = secondFactors[account.id] { insertSecondFactors(set, uid: account.id) }
            finish(account.id, record.options(for: account, at: clock.now, routing: announcer))
            return .imported
        }
    }

    /// Loads the account, runs `body` and saves the result; if anything throws, nothing changes.
    /// Changing the uid is refused with `AccountStoreError(.notFound)`, as in ``SQLBrokerStore``.
    public func update(
        id: AccountID, options: AccountWriteOptions, _ body: @escaping @Sendable (inout Account) throws -> Void
    ) throws -> Account {
        guard let original = accounts[id] else { throw AccountStoreError(.notFound, "no account \(id)") }
        try checkCustomToken(options, uid: id)
        var changed = original
        try body(&changed)
        guard changed.id == id else {
            throw AccountStoreError(.notFound, "update(id: \(id)) must not change the uid to \(changed.id)")
        }
        let options = options.amending(&changed).announcing(announcer, uid: id)
        changed = Self.normalized(changed)
        try checkCanSave(changed, replacing: original)
        try checkCanConsume(options.consuming)
        try checkCanEnqueue(options.enqueuing)
        save(changed, replacing: original)
        // A reset code is bound to the password it was issued against (contract section 9).
        if changed.password?.hash != original.password?.hash { retireResetCodes(of: id) }
        finish(id, options)
        return accounts[id] ?? changed
    }

    /// ``update(id:options:_:)`` for the account the identity is linked to; nil, changing nothing, if none.
    public func update(
        linkedTo provider: ProviderID, subject: String, options: AccountWriteOptions,
        _ body: @escaping @Sendable (inout Account) throws -> Void
    ) throws -> Account? {
        guard let linked = account(provider: provider, subject: subject) else { return nil }
        return try update(id: linked.id, options: options, body)
    }

    /// Deletes the account, its identities and refresh tokens, recording and queuing as `options` ask;
    /// `notFound` if absent.
    public func delete(id: AccountID, options: AccountWriteOptions) throws {
        try delete(id: id, options: options, enqueuingFor: { _ in [] })
    }

    /// ``delete(id:options:)`` also queuing the jobs `jobs` derives from the account before it goes.
    public func delete(
        id: AccountID, options: AccountWriteOptions,
        enqueuingFor jobs: @escaping @Sendable (Account) throws -> [OutboxJob]
    ) throws {
        guard let stored = accounts[id] else { throw AccountStoreError(.notFound, "no account \(id)") }
        let options = options.announcing(announcer, uid: id)
        try checkCanConsume(options.consuming)
        let enqueuing = options.enqueuing + (try jobs(stored))
        try checkCanEnqueue(enqueuing)
        guard let account = accounts.removeValue(forKey: id) else {
            throw AccountStoreError(.notFound, "no account \(id)")
        }
        unindex(account)
        tokens = tokens.filter { $0.value.accountID != id }
        finish(
            id,
            AccountWriteOptions(
                consuming: options.consuming, recording: options.recording, enqueuing: enqueuing,
                cutsOffCustomTokens: true, removesSecondFactors: true))
    }

    /// The uid's custom-token cutoff, if one was set.
    public func customTokenCutoff(uid: AccountID) -> Date? { customTokenCutoffs[uid] }

    /// Refuses a custom-token sign-in (`options.customTokenIssuedAt`) whose token the uid's cutoff covers.
    private func checkCustomToken(_ options: AccountWriteOptions, uid: AccountID) throws {
        guard let issuedAt = options.customTokenIssuedAt else { return }
        if AccountWriteOptions.isCutOff(issuedAt: issuedAt, by: customTokenCutoffs[uid]) {
            throw AccountStoreError(.cutOff, "custom token of \(uid) minted before its cutoff")
        }
    }

    /// Records `mark` alone; `alreadyUsed` if it was recorded before and has not expired.
    public func consume(_ mark: SingleUseMark) throws {
        try checkCanConsume(mark)
        record(mark)
    }

    /// Stores `mark`, purging the expired ones.
    private func record(_ mark: SingleUseMark) {
        let now = Self.normalized(clock.now)
        marks = marks.filter { $0.value >= now }
        marks[mark.key] = Self.normalized(mark.expiresAt)
    }

    // MARK: - SessionStore

    /// Stores a newly issued token; a hash stored before throws `alreadyExists`.
    public func insertRefreshToken(_ record: RefreshTokenRecord) throws {
        guard tokens[record.tokenHash] == nil else { throw AccountStoreError(.alreadyExists, "token hash") }
        tokens[record.tokenHash] = Self.normalized(record)
    }

    /// Deletes refresh tokens and single-use marks that expired before `date`.
    @discardableResult
    public func purgeExpired(before date: Date) -> Int {
        let tokensBefore = tokens.count
        let marksBefore = marks.count
        tokens = tokens.filter { $0.value.expiresAt >= date }
        marks = marks.filter { $0.value >= date }
        return tokensBefore - tokens.count + marksBefore - marks.count
    }

    /// The record of the token with this hash.
    public func refreshToken(hash: String) -> RefreshTokenRecord? { tokens[hash] }

    /// The record of the token with this hash and its account (nil when the account is gone).
    public func refreshTokenAndAccount(hash: String) -> (RefreshTokenRecord, Account?)? {
        tokens[hash].map { ($0, accounts[$0.accountID]) }
    }

    /// Marks `hash` rotated and stores `successor`, if `hash` was neither rotated nor revoked.
    public func rotateRefreshToken(hash: String, at date: Date, successor: RefreshTokenRecord) throws -> Bool {
        guard var token = tokens[hash], token.rotatedAt == nil, token.revokedAt == nil else { return false }
        guard tokens[successor.tokenHash] == nil else { throw AccountStoreError(.alreadyExists, "token hash") }
        token.rotatedAt = Self.normalized(date)
        tokens[hash] = token
        tokens[successor.tokenHash] = Self.normalized(successor)
        return true
    }

    /// Stores `successor` unless a token of its session has been revoked.
    public func addToSession(_ successor: RefreshTokenRecord) throws -> Bool {
        guard !tokens.values.contains(where: { $0.sessionID == successor.sessionID && $0.revokedAt != nil }) else {
            return false
        }
        try insertRefreshToken(successor)
        return true
    }

    /// Records a use of a live token without rotating it.
    public func useRefreshToken(hash: String, at date: Date) -> Bool {
        guard var token = tokens[hash], token.revokedAt == nil else { return false }
        token.usedAt = Self.normalized(date)
        tokens[hash] = token
        return true
    }

    /// Whether the session holds a token neither revoked nor expired.
    public func isSessionLive(id: String, accountID: AccountID, at date: Date) -> Bool {
        tokens.values.contains {
            $0.sessionID == id && $0.accountID == accountID && $0.revokedAt == nil && $0.expiresAt > date
        }
    }

    /// Whether the session is live and, when it is, the account (nil when it is gone).
    public func liveSessionAccount(id: String, accountID: AccountID, at date: Date) -> (live: Bool, account: Account?) {
        guard isSessionLive(id: id, accountID: accountID, at: date) else { return (false, nil) }
        return (true, accounts[accountID])
    }

    /// Revokes every not yet revoked token of the session.
    public func revokeSession(id: String, at date: Date) {
        revokeTokens(at: date) { $0.sessionID == id }
    }

    /// Revokes every not yet revoked token of the account.
    public func revokeSessions(accountID: AccountID, at date: Date) {
        revokeTokens(at: date) { $0.accountID == accountID }
        accounts[accountID]?.tokensValidAfter = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    // MARK: - SigningKeyStore

    /// Every stored key, oldest first (ties broken by kid).
    public func signingKeys() -> [StoredSigningKey] {
        keys.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Retires every active key and stores `key`, atomically.
    public func rotateSigningKey(to key: StoredSigningKey, at date: Date) throws {
        guard keys[key.id] == nil else { throw AccountStoreError(.alreadyExists, "signing key \(key.id)") }
        let retired = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
        for (id, stored) in keys where stored.retiredAt == nil { keys[id]?.retiredAt = retired }
        var added = key
        added.retiredAt = nil
        added.createdAt = Date(timeIntervalSince1970: (key.createdAt.timeIntervalSince1970 * 1000).rounded() / 1000)
        keys[key.id] = added
    }

    /// Stores a new key; a kid stored before throws `alreadyExists`.
    public func insertSigningKey(_ key: StoredSigningKey) throws {
        guard keys[key.id] == nil else { throw AccountStoreError(.alreadyExists, "signing key \(key.id)") }
        var key = key
        key.createdAt = Self.normalized(key.createdAt)
        key.retiredAt = key.retiredAt.map(Self.normalized)
        keys[key.id] = key
    }

    /// Stores `key` (active) unless an active key exists; true when stored.
    public func insertFirstSigningKey(_ key: StoredSigningKey) throws -> Bool {
        guard !keys.values.contains(where: { $0.retiredAt == nil }) else { return false }
        var active = key
        active.retiredAt = nil
        try insertSigningKey(active)
        return true
    }

    /// Marks the key retired at `date`; a key retired before keeps its first date. `notFound` if absent.
    public func retireSigningKey(id: KeyID, at date: Date) throws {
        guard var key = keys[id] else { throw AccountStoreError(.notFound, "no signing key \(id)") }
        guard key.retiredAt == nil else { return }
        key.retiredAt = Self.normalized(date)
        keys[id] = key
    }

    // MARK: - Checks and changes

    /// Throws `alreadyExists` if `account` lists an identity twice, or its email or an identity it adds
    /// belongs to another account.
    private func checkCanSave(_ account: Account, replacing old: Account?) throws {
        let identityKeys = account.identities.map(IdentityKey.init)
        guard Set(identityKeys).count == identityKeys.count else {
            throw AccountStoreError(.alreadyExists, "an identity is listed twice")
        }
        for key in identityKeys {
            if let owner = identityOwners[key], owner != account.id {
                throw AccountStoreError(.alreadyExists, "identity \(key.provider) is linked to another account")
            }
        }
        if let email = account.email, let owner = emailOwners[email.lowercased()], owner != account.id {
            throw AccountStoreError(.alreadyExists, "email is taken")
        }
        if let phone = account.phoneNumber, let owner = phoneOwners[phone], owner != account.id {
            throw AccountStoreError(.alreadyExists, "phone number is taken")
        }
    }

    /// Throws `alreadyUsed` if `mark` was consumed before and has not expired.
    private func checkCanConsume(_ mark: SingleUseMark?) throws {
        guard let mark, let expiry = marks[mark.key] else { return }
        if expiry >= Self.normalized(clock.now) {
            throw AccountStoreError(.alreadyUsed, "single-use mark already consumed")
        }
    }

    private func save(_ account: Account, replacing old: Account?) {
        if let old { unindex(old) }
        accounts[account.id] = account
        for identity in account.identities {
            identityOwners[IdentityKey(identity)] = account.id
        }
        if let email = account.email { emailOwners[email.lowercased()] = account.id }
        if let phone = account.phoneNumber { phoneOwners[phone] = account.id }
    }

    private func unindex(_ account: Account) {
        for identity in account.identities where identityOwners[IdentityKey(identity)] == account.id {
            identityOwners[IdentityKey(identity)] = nil
        }
        if let email = account.email, emailOwners[email.lowercased()] == account.id {
            emailOwners[email.lowercased()] = nil
        }
        if let phone = account.phoneNumber, phoneOwners[phone] == account.id {
            phoneOwners[phone] = nil
        }
    }

    /// Consumes the mark (purging expired ones), revokes and issues sessions and records events, as `options` ask.
    func finish(_ id: AccountID, _ options: AccountWriteOptions) {
        let now = Self.normalized(clock.now)
        if let mark = options.consuming { record(mark) }
        if options.cutsOffCustomTokens {
            let cutoff = AccountWriteOptions.customTokenCutoff(at: now)
            customTokenCutoffs[id] = max(customTokenCutoffs[id] ?? cutoff, cutoff)
        }
        if options.removesSecondFactors {
            removeSecondFactors(of: id)
            removePasskeys(of: id)
        }
        if options.revokeSessions {
            revokeSessions(accountID: id, at: now)
        }
        if let grant = options.issuing {
            tokens[grant.tokenHash] = Self.normalized(grant.record(for: id))
        }
        for var event in options.recording {
            if event.uid == nil { event.uid = id }
            appendAuditEvent(event)
        }
        for var job in options.enqueuing {
            if job.uid == nil { job.uid = id }
            storeOutboxJob(job)
        }
        for code in options.storingCodes { insert(code) }
        if let key = options.clearingLoginFailures { clearLoginFailures(emailKey: key) }
    }

    private func revokeTokens(at date: Date, where matches: (RefreshTokenRecord) -> Bool) {
        let date = Self.normalized(date)
        for (hash, token) in tokens where token.revokedAt == nil && matches(token) {
            tokens[hash]?.revokedAt = date
        }
    }

    // MARK: - Normalizing as the SQL store stores

    /// `date` rounded to the millisecond, as stored in SQL.
    static func normalized(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    private static func normalized(_ account: Account) -> Account {
        var account = account
        account.createdAt = normalized(account.createdAt)
        account.lastSignInAt = account.lastSignInAt.map(normalized)
        account.tokensValidAfter = account.tokensValidAfter.map(normalized)
        if var imported = account.imported {
            imported.importedAt = normalized(imported.importedAt)
            imported.otherIdentities = imported.otherIdentities.map { identity in
                var identity = identity
                identity.linkedAt = normalized(identity.linkedAt)
                return identity
            }
            account.imported = imported
        }
        account.identities = account.identities.map { identity in
            var identity = identity
            identity.linkedAt = normalized(identity.linkedAt)
            return identity
        }.sorted {
            ($0.linkedAt, $0.provider.rawValue, $0.subject) < ($1.linkedAt, $1.provider.rawValue, $1.subject)
        }
        return account
    }

    private static func normalized(_ record: RefreshTokenRecord) -> RefreshTokenRecord {
        var record = record
        record.createdAt = normalized(record.createdAt)
        record.expiresAt = normalized(record.expiresAt)
        record.rotatedAt = record.rotatedAt.map(normalized)
        record.revokedAt = record.revokedAt.map(normalized)
        return record
    }
}
