public import BrokerModel
public import Foundation

/// ``PasskeyStore`` in memory, with the SQL store's semantics.
extension MemoryBrokerStore {
    /// The account's passkeys, oldest first.
    public func passkeys(uid: AccountID) -> [PasskeyRecord] {
        passkeyRecords.values.filter { $0.uid == uid }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// The passkey with credential id `id`.
    public func passkey(id: String) -> PasskeyRecord? { passkeyRecords[id] }

    /// Stores a challenge, forgetting expired ones.
    public func insertPasskeyChallenge(_ record: PasskeyChallengeRecord) throws {
        let now = Self.normalized(record.createdAt)
        passkeyChallenges = passkeyChallenges.filter { $0.value.expiresAt >= now }
        guard passkeyChallenges[record.challengeHash] == nil else {
            throw AccountStoreError(.alreadyExists, "passkey challenge")
        }
        var stored = record
        stored.createdAt = now
        stored.expiresAt = Self.normalized(record.expiresAt)
        passkeyChallenges[record.challengeHash] = stored
    }

    /// Spends the unexpired challenge of `ceremony`.
    public func consumePasskeyChallenge(
        hash: String, ceremony: PasskeyCeremony, at date: Date
    ) -> PasskeyChallengeRecord? {
        guard let record = passkeyChallenges[hash], record.ceremony == ceremony,
            record.expiresAt >= Self.normalized(date)
        else { return nil }
        passkeyChallenges[hash] = nil
        return record
    }

    /// Stores a new passkey of an existing account.
    public func insertPasskey(_ record: PasskeyRecord, recording: [AuditEvent]) throws {
        guard accounts[record.uid] != nil else { throw AccountStoreError(.notFound, "no account \(record.uid)") }
        guard passkeyRecords[record.id] == nil else { throw AccountStoreError(.alreadyExists, "passkey") }
        store(record)
        // A passkey is a way in: a guest that registers one is a guest no more (contract section 13).
        accounts[record.uid]?.isAnonymous = false
        self.record(recording, uid: record.uid)
    }

    /// Creates `account` with its first passkey (a passwordless sign-up).
    public func createPasskeyAccount(
        _ account: Account, passkey record: PasskeyRecord, options: AccountWriteOptions
    ) throws {
        guard passkeyRecords[record.id] == nil else { throw AccountStoreError(.credentialTaken) }
        try create(account, options: options)
        store(record)
    }

    /// Stores a new passkey of an existing account, changing the account by `body`.
    public func insertPasskey(
        _ record: PasskeyRecord, options: AccountWriteOptions,
        updating body: @escaping @Sendable (inout Account) throws -> Void
    ) throws -> Account {
        guard passkeyRecords[record.id] == nil else { throw AccountStoreError(.credentialTaken) }
        // The update checks everything before it changes anything; storing the passkey cannot fail after it.
        let account = try update(id: record.uid, options: options, body)
        store(record)
        return account
    }

    /// Keeps `record` at the store's precision.
    private func store(_ record: PasskeyRecord) {
        var stored = record
        stored.createdAt = Self.normalized(record.createdAt)
        stored.lastUsedAt = record.lastUsedAt.map(Self.normalized)
        passkeyRecords[record.id] = stored
    }

    /// Finishes a sign-in with the passkey, while its counter is still `previousSignCount`.
    public func completePasskeySignIn(
        id: String, signCount: Int64, previousSignCount: Int64, backedUp: Bool, at date: Date,
        options: AccountWriteOptions
    ) throws -> Account {
        guard var passkey = passkeyRecords[id], passkey.signCount == previousSignCount else {
            throw AccountStoreError(.alreadyUsed, "the passkey is gone or its counter moved")
        }
        guard var account = accounts[passkey.uid] else {
            throw AccountStoreError(.notFound, "no account \(passkey.uid)")
        }
        guard !account.disabled else { throw AccountStoreError(.disabled) }
        try checkCanEnqueue(options.enqueuing)
        passkey.signCount = signCount
        passkey.backedUp = backedUp
        passkey.lastUsedAt = Self.normalized(date)
        passkeyRecords[id] = passkey
        account.lastSignInAt = Self.normalized(date)
        accounts[account.id] = account
        finish(account.id, options)
        return account
    }

    /// Renames the passkey `id` of `uid`.
    public func renamePasskey(id: String, uid: AccountID, name: String?) -> PasskeyRecord? {
        guard var passkey = passkeyRecords[id], passkey.uid == uid else { return nil }
        passkey.name = name
        passkeyRecords[id] = passkey
        return passkey
    }

    /// Removes the passkey `id` of `uid`.
    public func deletePasskey(id: String, uid: AccountID, recording: [AuditEvent]) -> Bool {
        guard passkeyRecords[id]?.uid == uid else { return false }
        passkeyRecords[id] = nil
        record(recording, uid: uid)
        return true
    }

    /// Removes the account's passkeys and its registration challenges (with its second factors).
    func removePasskeys(of uid: AccountID) {
        passkeyRecords = passkeyRecords.filter { $0.value.uid != uid }
        passkeyChallenges = passkeyChallenges.filter { $0.value.uid != uid }
    }
}
