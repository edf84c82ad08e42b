public import BrokerModel
public import Foundation

/// A sign-in waiting for its second factor, as stored: what the session it finishes will be.
public struct PendingSignInRecord: Sendable, Equatable {
    /// SHA-256 hex of the opaque pending credential.
    public var credentialHash: String
    /// The account the sign-in reaches.
    public var uid: AccountID
    /// The first factor's sign-in provider (the session's).
    public var signInProvider: String
    /// The listener the session is made for.
    public var surface: SessionSurface
    /// When it was made.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// Wrong codes given for it so far.
    public var failures: Int

    /// Creates a record.
    public init(
        credentialHash: String, uid: AccountID, signInProvider: String, surface: SessionSurface, createdAt: Date,
        expiresAt: Date, failures: Int = 0
    ) {
        self.credentialHash = credentialHash
        self.uid = uid
        self.signInProvider = signInProvider
        self.surface = surface
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.failures = failures
    }
}

/// What finishes a pending sign-in, as the commit checks it again.
public enum SecondFactorProof: Sendable, Equatable {
    /// A code of the factor for this time step: the factor must still be enrolled, the step after its last used.
    case totp(factorID: String, step: Int64)
    /// A recovery code, by its hash: it must still be unused.
    case recoveryCode(hash: String)
}

/// Where second factors, recovery codes (as hashes) and pending sign-ins live (schema version 17). Every backend
/// passes the conformance suite. A takeover, a reset or verification of a never-verified account and a provider's
/// legacy link remove an account's factors in their own transaction (``AccountWriteOptions/removesSecondFactors``);
/// a deletion removes them with the account.
public protocol SecondFactorStore: Sendable {
    /// The account's enrolled factors (verified), oldest first.
    func secondFactors(uid: AccountID) async throws -> [SecondFactorRecord]
    /// The factor or pending enrolment `id` of `uid`.
    func secondFactor(id: String, uid: AccountID) async throws -> SecondFactorRecord?
    /// The account's unused recovery codes.
    func recoveryCodesLeft(uid: AccountID) async throws -> Int
    /// Stores a pending enrolment, forgetting the account's pending enrolments made before `purgeBefore`.
    func insertSecondFactor(_ record: SecondFactorRecord, purgeBefore: Date) async throws
    /// In one transaction: the pending enrolment `id` of `uid`, made after `madeAfter`, is verified at `date` with
    /// its code's `step` (its last used) and `displayName`; the account's recovery codes become `recoveryCodeHashes`;
    /// `recording` is appended to the audit log. Nil, writing nothing, when there is no such pending enrolment.
    func confirmSecondFactor(
        id: String, uid: AccountID, displayName: String?, step: Int64, at date: Date, madeAfter: Date,
        recoveryCodeHashes: [String], recording: [AuditEvent]
    ) async throws -> SecondFactorRecord?
    /// Removes the enrolled factor `id` of `uid` with `recording`, and the recovery codes with the last factor;
    /// false, writing nothing, when there is none.
    func deleteSecondFactor(id: String, uid: AccountID, recording: [AuditEvent]) async throws -> Bool
    /// Replaces the account's recovery codes with `hashes` (the old set dies), with `recording`; false, writing
    /// nothing, when the account has no enrolled factor.
    func replaceRecoveryCodes(uid: AccountID, hashes: [String], recording: [AuditEvent]) async throws -> Bool
    /// The enrolled factors and unused recovery codes of each of `uids` that has a factor (an export's page).
    func secondFactorSets(of uids: [AccountID]) async throws -> [AccountID: AccountSecondFactors]
    /// Stores a pending sign-in, forgetting expired ones, and records the first factor's single-use `mark` (if any)
    /// in the same transaction: a mark recorded before (and unexpired) fails it with `alreadyUsed`, storing nothing.
    func insertPendingSignIn(_ record: PendingSignInRecord, consuming mark: SingleUseMark?) async throws
    /// The pending sign-in with this credential hash, unless it expired before `date`.
    func pendingSignIn(hash: String, at date: Date) async throws -> PendingSignInRecord?
    /// Counts one wrong code against the pending sign-in; at `limit` wrong codes it is deleted. The count after,
    /// or nil when there was no such pending sign-in.
    func recordPendingFailure(hash: String, limit: Int) async throws -> Int?
    /// Finishes the pending sign-in `hash` in one transaction: it must exist, be unexpired at `date`, and is
    /// deleted; `proof` must still hold (the factor enrolled and `step` after its last used one, which becomes
    /// it; the recovery code unused, which is used up); the account must exist and be enabled (its last sign-in
    /// becomes `date`), and `change` (a held link) is applied to it, saved as an account update saves (identities it
    /// adds linked, one linked elsewhere `alreadyExists`); `options` apply as to an update (the session, the
    /// single-use mark, the audit events, a hook's amendment, the announced events); the wrong attempts counted
    /// under `lockoutKey` (``LoginAttemptStore``) are forgotten. Throws `AccountStoreError(.notFound)` when the
    /// pending sign-in (or the account) is gone, `.stale` when the proof no longer holds, `.disabled` for a disabled
    /// account, or what `change` throws; then nothing is written.
    func completeSecondFactor(
        pendingHash: String, proof: SecondFactorProof, at date: Date, options: AccountWriteOptions,
        clearingFailuresOf lockoutKey: String?, _ change: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account
}

extension SecondFactorStore {
    /// Stores a pending sign-in that spends no single-use mark.
    public func insertPendingSignIn(_ record: PendingSignInRecord) async throws {
        try await insertPendingSignIn(record, consuming: nil)
    }

    /// ``completeSecondFactor(pendingHash:proof:at:options:clearingFailuresOf:_:)`` clearing no lockout.
    public func completeSecondFactor(
        pendingHash: String, proof: SecondFactorProof, at date: Date, options: AccountWriteOptions,
        _ change: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account {
        try await completeSecondFactor(
            pendingHash: pendingHash, proof: proof, at: date, options: options, clearingFailuresOf: nil, change)
    }

    /// ``completeSecondFactor(pendingHash:proof:at:options:clearingFailuresOf:_:)`` clearing no lockout and
    /// changing nothing of the account but its last sign-in.
    public func completeSecondFactor(
        pendingHash: String, proof: SecondFactorProof, at date: Date, options: AccountWriteOptions
    ) async throws -> Account {
        try await completeSecondFactor(pendingHash: pendingHash, proof: proof, at: date, options: options) { _ in }
    }
}
