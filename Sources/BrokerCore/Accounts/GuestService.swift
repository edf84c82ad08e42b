public import BrokerModel
package import BrokerStorage
public import Foundation

/// Guest accounts, upgraded in place (contract section 13): making one (counted per client address), upgrading it
/// with a provider's identity or an email and password while it keeps its uid, sessions and custom claims, and the
/// sweep of inactive guests. An upgrade is refused as a first sign-in would be, but never takes an account over,
/// and a refused one changes nothing (a provider token's single-use mark stays unspent).
public struct GuestService: Sendable {
    /// The `anonymous` section.
    public let settings: AnonymousSettings
    let store: any AccountStore & GuestStore
    let accounts: AccountService
    let deletion: AccountDeletion
    let clock: any Clock

    /// The lease the sweep takes, so one instance at a time runs it.
    public static let sweepLease = "guest-sweep"

    /// Creates the service.
    package init(
        settings: AnonymousSettings, store: any AccountStore & GuestStore, accounts: AccountService,
        deletion: AccountDeletion, clock: any Clock
    ) {
        self.settings = settings
        self.store = store
        self.accounts = accounts
        self.deletion = deletion
        self.clock = clock
    }

    // MARK: - Making a guest

    /// A new guest, not yet stored (a guest sign-in's authentication): disabled is `providerNotEnabled`; more than
    /// ``AnonymousSettings/maxPerAddressPerHour`` from `address` within the hour is `tooManyAttempts`.
    func newGuest(address: String) async throws -> Account {
        guard settings.enabled else { throw SignInError(.providerNotEnabled, "anonymous sign-in is disabled") }
        let now = clock.now
        try await CreationLimit.reserve(address, limit: settings.maxPerAddressPerHour, at: now, in: store)
        return Account(
            id: AccountID.generate(), createdAt: now, lastSignInAt: now, origin: .anonymous, isAnonymous: true)
    }

    /// Stores `guest` with `session` and its `sign_in` audit event (outcome `created`), in one transaction.
    func create(_ guest: Account, session: SessionGrant, requestID: String) async throws -> Account {
        let events = accounts.signInEvents(.created, uid: guest.id, provider: .anonymous, requestID: requestID)
        try await store.create(guest, options: AccountWriteOptions(issuing: session, recording: events))
        return guest
    }

    // MARK: - Upgrades

    /// Upgrades guest `id` with a provider's verified identity: the identity is linked, the provider's email
    /// claimed when no account holds it, and the account stops being a guest, in one transaction with `session`,
    /// the single-use mark and the `link` and `sign_in` events. An identity linked elsewhere is
    /// `identityAlreadyLinked`; a verified email another account holds verified is
    /// `accountExistsWithDifferentCredential`; an email an account holds unverified stays that account's and does
    /// not stop the upgrade; an account that is no guest (another upgrade won) is ``Refusal/notAGuest``.
    public func upgrade(
        _ id: AccountID, linking verified: VerifiedIdentity, session: SessionGrant, requestID: String?
    ) async throws -> Account {
        var sanitized = verified.identity
        sanitized.photoURL = PhotoURL.sanitized(sanitized.photoURL, allowInsecure: accounts.allowInsecurePhotoURLs)
        let identity = sanitized
        // Stored with the kind of credential that linked it, as every link stores it.
        let linkedIdentity = verified.linkedIdentity(at: clock.now)
        let events = accounts.signInEvents(.linked, uid: id, provider: identity.provider, requestID: requestID)
        let options = AccountWriteOptions(consuming: verified.singleUse, issuing: session, recording: events)
        let now = clock.now
        // A lost race (the identity or the email taken meanwhile) is decided again on fresh state.
        return try await accounts.retryingRaces {
            let claimEmail = try await claimsEmail(identity, of: id)
            do {
                return try await store.update(id: id, options: options) { account in
                    try Self.admitUpgrade(account)
                    account.identities.append(linkedIdentity)
                    if claimEmail, let email = identity.email {
                        account.email = email
                        account.emailVerified = identity.emailVerified
                    }
                    if account.displayName == nil { account.displayName = identity.displayName }
                    if account.photoURL == nil { account.photoURL = identity.photoURL }
                    account.isAnonymous = false
                    account.lastSignInAt = now
                }
            } catch let error as AccountStoreError where error.code == .alreadyUsed {
                throw TokenError(.replayed)
            } catch let error as AccountStoreError where error.code == .notFound {
                throw AccountError(.notFound)  // the guest was deleted meanwhile: not a race to retry
            }
        }
    }

    /// Upgrades guest `id` with an email and password (`POST /v1/signup` with the guest's ID token): the email and
    /// password as a sign-up's (``PasswordPolicy``; an email any account holds, verified or not, is `emailExists`),
    /// stored with `session` and the `sign_up` event in one transaction; an account that is no guest is
    /// ``Refusal/notAGuest``.
    public func upgrade(
        _ id: AccountID, email: String, password: String, displayName: String?, session: SessionGrant,
        requestID: String?
    ) async throws -> Account {
        // The same checks and hashing as a sign-up; only its email and hash are kept.
        let credential = try await accounts.newPasswordAccount(email: email, password: password, displayName: nil)
        let now = clock.now
        let events = requestID.map {
            [AuditEvent(time: now, uid: id, action: .signUp, provider: "password", actor: .user, requestID: $0)]
        }
        let options = AccountWriteOptions(issuing: session, recording: events ?? [])
        return try await Self.storingUpgrade {
            try await store.update(id: id, options: options) { account in
                try Self.upgrade(&account, email: credential.email, displayName: displayName, at: now)
                account.password = credential.password
            }
        }
    }

    /// Refuses an upgrade of an account that is no guest (``Refusal/notAGuest``) or is disabled.
    static func admitUpgrade(_ account: Account) throws {
        guard account.isAnonymous else { throw GuestError.notAGuest }
        guard !account.disabled else { throw AccountError(.userDisabled) }
    }

    /// What every upgrade by a sign-up does to the guest, inside its write, after ``admitUpgrade(_:)``: the email
    /// (unverified) and the display name when given, no longer a guest, signed in at `now`.
    static func upgrade(_ account: inout Account, email: String?, displayName: String?, at now: Date) throws {
        try admitUpgrade(account)
        if let email {
            account.email = email
            account.emailVerified = false
        }
        if let displayName { account.displayName = displayName }
        account.isAnonymous = false
        account.lastSignInAt = now
    }

    /// Runs an upgrade's write, naming the store's refusals as the account layer's: an email taken meanwhile is
    /// `emailExists`, a guest deleted meanwhile `notFound`.
    static func storingUpgrade(_ write: () async throws -> Account) async throws -> Account {
        do {
            return try await write()
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw AccountError(.emailExists)
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        } catch let error as AccountStoreError where error.code == .credentialTaken {
            throw PasskeyError(.passkeyExists)  // a passwordless sign-up's passkey registered meanwhile
        }
    }

    /// Whether guest `id`'s upgrade with `identity` takes its email: the rules of a first sign-in
    /// (``LinkingPolicy``) without linking to or taking over another account. Throws the refusals.
    func claimsEmail(_ identity: ExternalIdentity, of id: AccountID) async throws -> Bool {
        let linked = try await store.account(provider: identity.provider, subject: identity.subject)
        if let linked { throw linked.id == id ? GuestError.notAGuest : AccountError(.identityAlreadyLinked) }
        let owner: Account? = if let email = identity.email { try await store.account(email: email) } else { nil }
        if let owner, owner.id == id { return false }  // the guest's own email (never: a guest has none)
        switch LinkingPolicy.decide(identity: identity, linked: nil, emailOwner: owner, linkByVerifiedEmail: false) {
        case .create(let claimEmail): return claimEmail
        case .signIn: throw AccountError(.identityAlreadyLinked)
        // An unverified holder keeps its email; the guest is upgraded without it.
        case .takeOver: return false
        case .link(let owner), .conflict(let owner): throw AccountService.emailHeldBy(owner)
        }
    }

    // MARK: - The sweep

    /// Deletes up to `limit` guests with no sign-in and no refresh for ``AnonymousSettings/deleteAfterDays``, each
    /// with its `delete` audit event (actor `system`) in its deletion's transaction, when `holder` holds the sweep's
    /// lease (one instance at a time; the lease outlives a crashed holder by `leaseTime`). Returns how many went.
    public func sweep(holder: String, limit: Int = 1000, leaseTime: TimeInterval = 600) async throws -> Int {
        let now = clock.now
        guard try await store.acquireLease(Self.sweepLease, holder: holder, until: now + leaseTime, now: now) else {
            return 0
        }
        let cutoff = now - settings.inactivityLimit
        var deleted = 0
        for uid in try await store.inactiveGuests(before: cutoff, limit: limit) {
            let event = AuditEvent(
                time: now, uid: uid, action: .delete, provider: ProviderID.anonymous.rawValue, actor: .system,
                requestID: "guest-sweep", origin: nil)
            do {
                try await store.delete(id: uid, options: AccountWriteOptions(recording: [event])) { account in
                    // Still a guest, still inactive, inside the deletion's transaction.
                    guard account.isAnonymous, (account.lastSignInAt ?? account.createdAt) < cutoff else {
                        throw GuestError.notAGuest
                    }
                    return try deletion.jobs(for: account, at: now)
                }
                deleted += 1
            } catch is GuestError {
                continue  // upgraded or signed in meanwhile
            } catch let error as AccountStoreError where error.code == .notFound {
                continue  // deleted meanwhile
            }
        }
        return deleted
    }
}

/// Why a guest's upgrade was refused beyond what a sign-in refuses (contract section 13), compared by code.
public struct GuestError: CodedError, Equatable {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// The account is no guest, or no longer one.
        case notAGuest
    }

    /// The reason.
    public var code: Code
    /// The code says it all.
    public var detail: String { "" }

    /// The account is no guest (another upgrade won).
    public static let notAGuest = GuestError(code: .notAGuest)

    /// The guest refusal (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .notAGuest: .notAGuest
        }
    }
}

extension ProviderID {
    /// The guest sign-in method (contract section 13): its label in metrics and audit events, and its sessions'
    /// `sign_in_provider`.
    public static let anonymous = ProviderID("anonymous")
}
