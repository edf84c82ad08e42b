import BrokerCrypto
public import BrokerModel
public import Foundation

/// A failure of an account store, compared by code.
public struct AccountStoreError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// A uniqueness rule was violated: uid, email or (provider, subject).
        case alreadyExists
        /// The change's single-use mark was recorded before (a replayed credential).
        case alreadyUsed
        /// The account (or record) does not exist.
        case notFound
        /// The storage cannot be reached or stayed busy.
        case unavailable
        /// A sign-in with a custom token minted at or before its uid's cutoff (a takeover, a password
        /// reset or a deletion came after it): ``AccountWriteOptions/customTokenIssuedAt``.
        case cutOff
        /// The account is disabled: a sign-in the store finishes in its transaction (a second factor's, a passkey's)
        /// writes nothing.
        case disabled
        /// What the change was decided on changed meanwhile: a second factor removed, or its step or the recovery
        /// code used, since the code was checked.
        case stale
        /// A passkey's credential id is registered already (to this account or another).
        case credentialTaken
    }
    /// The kind of failure.
    public var code: Code
    /// Detail for logs only.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// The uniqueness violation.
    public static let alreadyExists = AccountStoreError(.alreadyExists)
    /// The replayed single-use mark.
    public static let alreadyUsed = AccountStoreError(.alreadyUsed)
    /// The missing record.
    public static let notFound = AccountStoreError(.notFound)
    /// The custom token minted before its uid's cutoff.
    public static let cutOff = AccountStoreError(.cutOff)
}

/// What else happens in the transaction of an account change.
public struct AccountWriteOptions: Sendable, Equatable {
    /// Records this mark in the same transaction; if it was recorded before (and has not expired), the change
    /// fails with `alreadyUsed` and nothing is written.
    public var consuming: SingleUseMark?
    /// Revokes every session (refresh token) of the account in the same transaction, and sets the account's
    /// `tokensValidAfter` to the current second.
    public var revokeSessions: Bool
    /// Stores this new session for the account in the same transaction (after any revocation).
    public var issuing: SessionGrant?
    /// Appends these events to the audit log in the same transaction, so the change and its record commit
    /// together (and a sign-in costs one commit, not two). An event without a uid gets the account's.
    public var recording: [AuditEvent]
    /// Queues these outbox jobs in the same transaction, so a delivery exists exactly when its change
    /// committed. A job without a uid gets the account's.
    public var enqueuing: [OutboxJob]
    /// Sets the uid's custom-token cutoff to the current second in the same transaction, so that every
    /// custom token of the uid minted up to that second signs nothing in any more (contract section 11): a
    /// takeover, a password reset. Every deletion does so too, whatever its options; an admin revocation does not.
    /// The cutoff outlives the account (it is kept by uid).
    public var cutsOffCustomTokens: Bool
    /// Removes the account's second factors, recovery codes and pending sign-ins in the same transaction (contract
    /// section 14): a takeover, a reset or verification of a never-verified account, a provider's legacy link, so
    /// that a squatter's factor does not lock the owner out.
    public var removesSecondFactors: Bool
    /// The write is a sign-in with a custom token issued at this instant (`iat`): it fails with
    /// `AccountStoreError(.cutOff)`, writing nothing, when the uid's cutoff is at or after that whole second.
    public var customTokenIssuedAt: Date?
    /// Stores these action codes in the same transaction (``EmailActionStore``), so that a mail the change queues
    /// and the code its link holds exist exactly when the change committed (an email change's recovery code).
    public var storingCodes: [OOBCodeRecord]
    /// Forgets the failed password attempts counted under this key (``LoginAttemptStore``) in the same transaction:
    /// a password sign-in's commit, so the lockout's count ends exactly when the sign-in is stored.
    public var clearingLoginFailures: String?

    /// Creates options.
    public init(
        consuming: SingleUseMark? = nil, revokeSessions: Bool = false, issuing: SessionGrant? = nil,
        recording: [AuditEvent] = [], enqueuing: [OutboxJob] = [], cutsOffCustomTokens: Bool = false,
        customTokenIssuedAt: Date? = nil, removesSecondFactors: Bool = false, storingCodes: [OOBCodeRecord] = [],
        clearingLoginFailures: String? = nil
    ) {
        self.clearingLoginFailures = clearingLoginFailures
        self.storingCodes = storingCodes
        self.removesSecondFactors = removesSecondFactors
        self.cutsOffCustomTokens = cutsOffCustomTokens
        self.customTokenIssuedAt = customTokenIssuedAt
        self.consuming = consuming
        self.revokeSessions = revokeSessions
        self.issuing = issuing
        self.recording = recording
        self.enqueuing = enqueuing
    }
}

/// Where accounts live. Aggregate-shaped: an account is loaded and saved with its identities; look-ups
/// return optionals; changes run a closure inside one transaction; every uniqueness violation surfaces as
/// `AccountStoreError.alreadyExists`. Every backend passes the one conformance suite.
public protocol AccountStore: Sendable {
    /// The account with uid `id`.
    func account(id: AccountID) async throws -> Account?
    /// The account that identity (provider, subject) is linked to.
    func account(provider: ProviderID, subject: String) async throws -> Account?
    /// The account holding `email`, compared case-insensitively.
    func account(email: String) async throws -> Account?
    /// Stores a new account with its identities.
    func create(_ account: Account, options: AccountWriteOptions) async throws
    /// Loads the account, lets `body` change it, and saves the result, all in one transaction.
    /// Identities added or removed by `body` are linked or unlinked; the uid cannot change.
    func update(
        id: AccountID, options: AccountWriteOptions, _ body: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account
    /// Like ``update(id:options:_:)`` for the account the identity (provider, subject) is linked to, found
    /// inside the transaction; nil, with nothing written, when it is linked to none. (A returning user's
    /// sign-in in one transaction, with no look-up before it.)
    func update(
        linkedTo provider: ProviderID, subject: String, options: AccountWriteOptions,
        _ body: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account?
    /// Deletes the account, its identities and its sessions, consuming `options.consuming`, appending
    /// `options.recording` to the audit log and queuing `options.enqueuing` (a provider's revocation) in the same
    /// transaction, and cutting off the uid's custom tokens minted up to the current second (see
    /// ``AccountWriteOptions/cutsOffCustomTokens``); the other options do not apply (the sessions go with the
    /// account).
    func delete(id: AccountID, options: AccountWriteOptions) async throws
    /// Like ``delete(id:options:)``, also queuing the jobs `jobs` derives from the account as it stood inside
    /// the transaction (what its linked providers are asked to do: ``AccountDeletion``); `jobs` throwing
    /// deletes nothing.
    func delete(
        id: AccountID, options: AccountWriteOptions,
        enqueuingFor jobs: @escaping @Sendable (Account) throws -> [OutboxJob]
    ) async throws
    /// The uid's custom-token cutoff (a whole second), if a takeover, a password reset or a deletion set one: a
    /// custom token for `uid` minted at or before it signs nothing in. Kept after the account is deleted.
    func customTokenCutoff(uid: AccountID) async throws -> Date?
    /// Records `mark` alone, changing no account (a provider's event about an identity no account holds, so a
    /// replay of it finds the mark even after that identity signs up); `alreadyUsed` if it was recorded before.
    func consume(_ mark: SingleUseMark) async throws
}

extension AccountStore {
    /// Deletes the account, its identities and its sessions.
    public func delete(id: AccountID) async throws {
        try await delete(id: id, options: AccountWriteOptions())
    }

    /// Stores a new account with its identities.
    public func create(_ account: Account) async throws {
        try await create(account, options: AccountWriteOptions())
    }

    /// Loads, changes and saves the account in one transaction.
    public func update(
        id: AccountID, _ body: @escaping @Sendable (inout Account) throws -> Void
    ) async throws -> Account {
        try await update(id: id, options: AccountWriteOptions(), body)
    }
}

extension AccountWriteOptions {
    /// The cutoff a takeover, a password reset or a deletion at `now` sets: its whole second, since a custom
    /// token's `iat` has whole seconds.
    public static func customTokenCutoff(at now: Date) -> Date {
        Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
    }

    /// Whether a custom token issued at `issuedAt` is cut off by `cutoff`: minted in the cutoff's second or
    /// before (whole seconds).
    public static func isCutOff(issuedAt: Date, by cutoff: Date?) -> Bool {
        guard let cutoff else { return false }
        return issuedAt.timeIntervalSince1970.rounded(.down) <= cutoff.timeIntervalSince1970.rounded(.down)
    }
}

extension AccountWriteOptions {
    /// Applies the amendment of the session being issued (``SessionGrant/amendment``) to `account`, the account
    /// as the write's transaction has it, and returns the options to finish the write with: without the session
    /// when the amendment leaves the account disabled. Every store calls it in `create` and `update`.
    public func amending(_ account: inout Account) -> AccountWriteOptions {
        guard let amendment = issuing?.amendment, amendment.changesAccount else { return self }
        amendment.apply(to: &account)
        guard account.disabled else { return self }
        var options = self
        options.issuing = nil
        return options
    }
}

extension AccountStoreError {
    /// A missing or disabled account, a cut-off custom token, a passkey registered already, or storage down; nil for
    /// what services must handle (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .notFound: .accountNotFound  // deleted while the request was under way
        case .cutOff: .customTokenCutOff
        case .unavailable: .storageUnavailable
        case .disabled: .userDisabled
        case .credentialTaken: .passkey(.passkeyExists)
        // Services turn these into their refusals; one that reaches a surface is a bug.
        case .alreadyExists, .alreadyUsed, .stale: nil
        }
    }
}
