public import BrokerModel
public import Foundation

/// The ceremony a passkey challenge was issued for; a challenge answers only its own.
public enum PasskeyCeremony: String, Sendable, Equatable, CaseIterable {
    /// A registration on a signed-in account (or a guest's upgrade).
    case registration
    /// A passwordless sign-up.
    case signUp
    /// A discoverable sign-in.
    case signIn
}

/// A challenge as stored: single-use, bound to its ceremony and (for a registration) its account, expiring.
public struct PasskeyChallengeRecord: Sendable, Equatable {
    /// SHA-256 hex of the challenge (the challenge itself is not stored).
    public var challengeHash: String
    /// The ceremony it was issued for.
    public var ceremony: PasskeyCeremony
    /// The account a registration is for (the guest an upgrade is for); nil for a sign-in and a new sign-up.
    public var uid: AccountID?
    /// The user handle the creation options carried (base64url); nil for a sign-in.
    public var userHandle: String?
    /// The email a sign-up asked for.
    public var email: String?
    /// The display name a sign-up asked for.
    public var displayName: String?
    /// When it was issued.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date

    /// Creates a record.
    public init(
        challengeHash: String, ceremony: PasskeyCeremony, uid: AccountID? = nil, userHandle: String? = nil,
        email: String? = nil, displayName: String? = nil, createdAt: Date, expiresAt: Date
    ) {
        self.challengeHash = challengeHash
        self.ceremony = ceremony
        self.uid = uid
        self.userHandle = userHandle
        self.email = email
        self.displayName = displayName
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// Where passkeys and their challenges live (schema version 20). Every backend passes the conformance suite. An
/// account's passkeys go with its second factors (``AccountWriteOptions/removesSecondFactors``: a takeover, a reset
/// or verification of a never-verified account, a provider's legacy link, a deletion), so that a squatter's passkey
/// does not stay.
public protocol PasskeyStore: Sendable {
    /// The account's passkeys, oldest first.
    func passkeys(uid: AccountID) async throws -> [PasskeyRecord]
    /// The passkey whose credential id is `id`, whichever account holds it.
    func passkey(id: String) async throws -> PasskeyRecord?
    /// Stores a challenge, forgetting the challenges that expired before its creation.
    func insertPasskeyChallenge(_ record: PasskeyChallengeRecord) async throws
    /// Spends the challenge `hash` issued for `ceremony`: it is deleted and returned when it exists and is unexpired
    /// at `date`; nil otherwise (and a challenge of another ceremony is left as it is).
    func consumePasskeyChallenge(
        hash: String, ceremony: PasskeyCeremony, at date: Date
    ) async throws
        -> PasskeyChallengeRecord?
    /// Stores a new passkey of an existing account with `recording`, in one transaction; a guest's account stops being
    /// a guest's (a passkey is a way in, contract section 13). Throws
    /// `AccountStoreError(.alreadyExists)` when the credential id is registered already,
    /// `AccountStoreError(.notFound)` when the account is gone.
    func insertPasskey(_ record: PasskeyRecord, recording: [AuditEvent]) async throws
    /// Stores a new passkey of the existing account `record.uid` and lets `body` change that account, with `options`
    /// (the session, the audit events), in one transaction: a guest's upgrade by a passwordless sign-up. Throws
    /// `AccountStoreError(.credentialTaken)` when the credential id is registered already,
    /// `AccountStoreError(.alreadyExists)` when the email `body` sets is taken, `AccountStoreError(.notFound)` when
    /// the account is gone, or what `body` throws, writing nothing. Returns the account as stored.
    func insertPasskey(
        _ record: PasskeyRecord, options: AccountWriteOptions,
        updating body: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account
    /// Creates `account` with its first passkey `record` and `options` (the session, the audit events) in one
    /// transaction: a passwordless sign-up. Throws `AccountStoreError(.credentialTaken)` when the credential id is
    /// registered already, `AccountStoreError(.alreadyExists)` when the uid or the email is taken, writing nothing.
    func createPasskeyAccount(
        _ account: Account, passkey record: PasskeyRecord, options: AccountWriteOptions)
        async throws
    /// Finishes a sign-in with the passkey `id` in one transaction: its counter becomes `signCount`, its backup state
    /// `backedUp` and its last use `date`, only while its counter is still `previousSignCount` (two sign-ins racing
    /// with one counter value: one wins); its account must exist and be enabled (its last sign-in becomes `date`);
    /// `options` apply (the session, the audit events). Throws `AccountStoreError(.alreadyUsed)` when the passkey is
    /// gone or its counter moved, `AccountStoreError(.notFound)` or `.disabled`, writing nothing.
    func completePasskeySignIn(
        id: String, signCount: Int64, previousSignCount: Int64, backedUp: Bool, at date: Date,
        options: AccountWriteOptions
    ) async throws -> Account
    /// Renames the passkey `id` of `uid`; the record after, or nil when there is none.
    func renamePasskey(id: String, uid: AccountID, name: String?) async throws -> PasskeyRecord?
    /// Removes the passkey `id` of `uid` with `recording`; false, writing nothing, when there is none.
    func deletePasskey(id: String, uid: AccountID, recording: [AuditEvent]) async throws -> Bool
}
