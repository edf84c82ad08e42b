public import BrokerModel
public import Foundation

/// ``SecondFactorStore`` in memory, with the SQL store's semantics.
extension MemoryBrokerStore {
    /// The account's enrolled factors, oldest first.
    public func secondFactors(uid: AccountID) -> [SecondFactorRecord] {
        factors.values.filter { $0.uid == uid && $0.enrolledAt != nil }.sorted {
            ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
        }
    }

    /// The factor or pending enrolment `id` of `uid`.
    public func secondFactor(id: String, uid: AccountID) -> SecondFactorRecord? {
        factors[id].flatMap { $0.uid == uid ? $0 : nil }
    }

    /// The account's unused recovery codes.
    public func recoveryCodesLeft(uid: AccountID) -> Int { recoveryCodes[uid]?.count ?? 0 }

    /// Stores a pending enrolment, forgetting the account's older pending ones.
    public func insertSecondFactor(_ record: SecondFactorRecord, purgeBefore: Date) throws {
        guard factors[record.id] == nil else { throw AccountStoreError(.alreadyExists, "factor \(record.id)") }
        factors = factors.filter {
            $0.value.uid != record.uid || $0.value.enrolledAt != nil || $0.value.createdAt >= purgeBefore
        }
        var stored = record
        stored.createdAt = Self.normalized(record.createdAt)
        stored.enrolledAt = record.enrolledAt.map(Self.normalized)
        factors[record.id] = stored
    }

    /// Verifies the pending enrolment and replaces the recovery codes.
    public func confirmSecondFactor(
        id: String, uid: AccountID, displayName: String?, step: Int64, at date: Date, madeAfter: Date,
        recoveryCodeHashes: [String], recording: [AuditEvent]
    ) -> SecondFactorRecord? {
        guard var factor = factors[id], factor.uid == uid, factor.enrolledAt == nil, factor.createdAt > madeAfter
        else { return nil }
        factor.enrolledAt = Self.normalized(date)
        factor.lastUsedStep = step
        factor.displayName = displayName
        factors[id] = factor
        recoveryCodes[uid] = Set(recoveryCodeHashes)
        record(recording, uid: uid)
        return factor
    }

    /// Removes the enrolled factor, and the recovery codes with the last one.
    public func deleteSecondFactor(id: String, uid: AccountID, recording: [AuditEvent]) -> Bool {
        guard let factor = factors[id], factor.uid == uid, factor.enrolledAt != nil else { return false }
        factors[id] = nil
        if secondFactors(uid: uid).isEmpty { recoveryCodes[uid] = nil }
        record(recording, uid: uid)
        return true
    }

    /// Replaces the recovery codes of an account with an enrolled factor.
    public func replaceRecoveryCodes(uid: AccountID, hashes: [String], recording: [AuditEvent]) -> Bool {
        guard !secondFactors(uid: uid).isEmpty else { return false }
        recoveryCodes[uid] = Set(hashes)
        record(recording, uid: uid)
        return true
    }

    /// Stores a pending sign-in, forgetting expired ones, with the first factor's single-use mark.
    public func insertPendingSignIn(_ record: PendingSignInRecord, consuming mark: SingleUseMark?) throws {
        guard pendingSignIns[record.credentialHash] == nil else {
            throw AccountStoreError(.alreadyExists, "pending sign-in")
        }
        if let mark { try consume(mark) }
        let now = Self.normalized(record.createdAt)
        pendingSignIns = pendingSignIns.filter { $0.value.expiresAt >= now }
        var stored = record
        stored.createdAt = now
        stored.expiresAt = Self.normalized(record.expiresAt)
        pendingSignIns[record.credentialHash] = stored
    }

    /// The unexpired pending sign-in with this hash.
    public func pendingSignIn(hash: String, at date: Date) -> PendingSignInRecord? {
        pendingSignIns[hash].flatMap { $0.expiresAt >= Self.normalized(date) ? $0 : nil }
    }

    /// Counts a wrong code; the pending sign-in dies at `limit`.
    public func recordPendingFailure(hash: String, limit: Int) -> Int? {
        guard var pending = pendingSignIns[hash] else { return nil }
        pending.failures += 1
        pendingSignIns[hash] = pending.failures >= limit ? nil : pending
        return pending.failures
    }

    /// Finishes the pending sign-in with `proof` and clears the lockout; every check is made before anything changes
    /// (a refusal changes nothing, as a rolled-back transaction).
    public func completeSecondFactor(
        pendingHash: String, proof: SecondFactorProof, at date: Date, options: AccountWriteOptions,
        clearingFailuresOf lockoutKey: String?, _ change: @escaping @Sendable (inout Account) throws -> Void
    ) throws -> Account {
        guard let pending = pendingSignIn(hash: pendingHash, at: date) else {
            throw AccountStoreError(.notFound, "the pending sign-in is unknown, expired or used")
        }
        let uid = pending.uid
        switch proof {
        case .totp(let factorID, let step):
            guard let factor = factors[factorID], factor.uid == uid, factor.enrolledAt != nil,
                (factor.lastUsedStep ?? .min) < step
            else { throw AccountStoreError(.stale, "the factor is gone or the code used") }
        case .recoveryCode(let hash):
            guard recoveryCodes[uid]?.contains(hash) == true else {
                throw AccountStoreError(.stale, "no such unused recovery code")
            }
        }
        // The account's change is saved as an update saves it (every check made before anything changes).
        let account = try update(id: uid, options: options) { account in
            guard !account.disabled else { throw AccountStoreError(.disabled) }
            account.lastSignInAt = date
            try change(&account)
        }
        pendingSignIns[pendingHash] = nil
        if let lockoutKey { clearLoginFailures(emailKey: lockoutKey) }
        switch proof {
        case .totp(let factorID, let step): factors[factorID]?.lastUsedStep = step
        case .recoveryCode(let hash): recoveryCodes[uid]?.remove(hash)
        }
        return account
    }

    /// The enrolled factors and unused recovery codes of each of `uids` that has a factor.
    public func secondFactorSets(of uids: [AccountID]) -> [AccountID: AccountSecondFactors] {
        var sets: [AccountID: AccountSecondFactors] = [:]
        for uid in uids {
            let enrolled = secondFactors(uid: uid)
            guard !enrolled.isEmpty else { continue }
            sets[uid] = AccountSecondFactors(factors: enrolled, recoveryCodeHashes: (recoveryCodes[uid] ?? []).sorted())
        }
        return sets
    }

    /// Stores an imported account's factors and recovery codes.
    func insertSecondFactors(_ set: AccountSecondFactors, uid: AccountID) {
        for var factor in set.factors {
            factor.uid = uid
            factor.createdAt = Self.normalized(factor.createdAt)
            factor.enrolledAt = factor.enrolledAt.map(Self.normalized)
            factors[factor.id] = factor
        }
        if !set.recoveryCodeHashes.isEmpty { recoveryCodes[uid] = Set(set.recoveryCodeHashes) }
    }

    /// Removes the account's factors, recovery codes and pending sign-ins.
    func removeSecondFactors(of uid: AccountID) {
        factors = factors.filter { $0.value.uid != uid }
        recoveryCodes[uid] = nil
        pendingSignIns = pendingSignIns.filter { $0.value.uid != uid }
    }

    /// Appends `events` and queues their event deliveries, an event without a uid getting `uid`.
    func record(_ events: [AuditEvent], uid: AccountID) {
        finish(uid, AccountWriteOptions(recording: events).announcing(announcer, uid: uid))
    }
}
