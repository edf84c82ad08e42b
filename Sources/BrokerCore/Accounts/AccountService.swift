import BrokerCrypto
package import BrokerIdentity
public import BrokerModel
package import BrokerStorage
import Foundation

/// The outcome of mapping a verified identity to an account.
public struct SignInOutcome: Sendable {
    /// What the sign-in did to the account.
    public enum Change: String, Sendable {
        /// Nothing but the sign-in time.
        case none
        /// Created it.
        case created
        /// Linked the identity to it (same verified email, or a provider's legacy linking).
        case linked
        /// Took it over from an unverified owner (pre-hijack defence).
        case tookOver
    }

    /// The account signed in to.
    public var account: Account
    /// What happened to it.
    public var change: Change
    /// Whether this sign-in created it.
    public var isNewUser: Bool { change == .created }

    /// Creates an outcome.
    public init(account: Account, change: Change) {
        self.account = account
        self.change = change
    }
}

/// Maps verified provider identities to accounts, applying ``LinkingPolicy`` and settling races through the
/// store's uniqueness rules: concurrent first sign-ins of one identity make exactly one account.
public struct AccountService: Sendable {
    let store: any AccountStore & LoginAttemptStore
    let clock: any Clock
    let linkByVerifiedEmail: Bool
    let passwords: any PasswordHashing
    /// Whether `http` photo URLs are kept too (`allowInsecureProviderUrls`).
    let allowInsecurePhotoURLs: Bool
    /// Whether changes that end an account's sessions also queue the revocation of its sessions beyond the broker's (a
    /// service account is configured).
    let revocation: SessionRevocation
    /// What a deletion queues for the uid's sessions beyond the broker's and its providers.
    let deletion: AccountDeletion
    /// A hash of nothing anyone knows, verified against when an email has no account, so that a wrong email
    /// costs the same time as a wrong password.
    let decoyHash: String
    /// Providers that refuse some passwords of some accounts (``PasswordSignInGuarding``).
    let passwordGuards: [any PasswordSignInGuarding]
    /// Where accounts' second factors are, when sign-ins ask for them (contract section 14): a right password of an
    /// account with a factor then does not clear its lockout count; only the completed second factor does.
    let secondFactors: (any SecondFactorStore)?
    /// Where accounts' passkeys are, when passkeys are enabled (contract section 15): a passkey is a way in, so an
    /// unlink may leave an account with only its passkeys.
    let passkeys: (any PasskeyStore)?
    /// What carries out each provider's own ``LinkingRule``.
    let linkingStrategies: [LinkingRule: any LinkingStrategy]

    /// Creates the service; `allowInsecurePhotoURLs` keeps `http` photo URLs too (see ``PhotoURL``).
    package init(
        store: any AccountStore & LoginAttemptStore, clock: any Clock, linkByVerifiedEmail: Bool,
        passwords: any PasswordHashing, allowInsecurePhotoURLs: Bool = false,
        revocation: SessionRevocation = .brokerOnly,
        deletion: AccountDeletion? = nil, passwordGuards: [any PasswordSignInGuarding] = [],
        secondFactors: (any SecondFactorStore)? = nil, passkeys: (any PasskeyStore)? = nil,
        linkingStrategies: [LinkingRule: any LinkingStrategy] = LinkingRule.builtInStrategies
    ) async throws {
        self.linkingStrategies = linkingStrategies
        self.secondFactors = secondFactors
        self.passkeys = passkeys
        self.passwordGuards = passwordGuards
        self.revocation = revocation
        self.deletion = deletion ?? AccountDeletion(revocation: revocation)
        self.store = store
        self.clock = clock
        self.linkByVerifiedEmail = linkByVerifiedEmail
        self.passwords = passwords
        self.allowInsecurePhotoURLs = allowInsecurePhotoURLs
        decoyHash = try await passwords.hash(Base64URL.encode(SecureRandom.bytes(16)))
    }

    /// Signs in with a verified identity. A refused sign-in writes nothing. A provider's photo URL that breaks
    /// ``PhotoURL``'s rule is dropped, never a refusal.
    public func signIn(_ signIn: SignInAttempt) async throws -> SignInOutcome {
        var signIn = signIn
        signIn.verified.identity.photoURL = PhotoURL.sanitized(
            signIn.identity.photoURL, allowInsecure: allowInsecurePhotoURLs)
        // Every strategy signs a linked identity in to its account: a returning user takes one transaction.
        if let returning = try await signInLinked(signIn) { return returning }
        if let rule = signIn.verified.linking {
            guard let strategy = linkingStrategies[rule] else {
                throw ProviderError(.misconfigured, "no linking strategy for the rule \(rule)")
            }
            return try await strategy.signInUnlinked(signIn, accounts: self)
        }
        let identity = signIn.identity
        // The transaction above found the identity linked to no account: the first decision takes that, unread
        // again. A lost race (the identity or the email was taken meanwhile) is decided again on fresh state.
        var unlinked = true
        return try await retryingRaces {
            let linked =
                unlinked ? nil : try await store.account(provider: identity.provider, subject: identity.subject)
            unlinked = false
            let owner: Account? =
                if linked == nil, let email = identity.email { try await store.account(email: email) } else { nil }
            let decision = LinkingPolicy.decide(
                identity: identity, linked: linked, emailOwner: owner, linkByVerifiedEmail: linkByVerifiedEmail)
            return try await apply(decision, signIn: signIn)
        }
    }

    /// The decide phase of a provider sign-in (``SignInMethod/decide(_:_:)``): the account `verified` reaches and
    /// what the sign-in will do to it, by the same rules ``signIn(_:)`` applies in its transaction. Reads only. An
    /// identity linked to no account of a provider with its own linking rule is expected to make an account (the
    /// rule decides in the commit); another account holding the email is the commit's refusal, given here.
    public func decide(_ verified: VerifiedIdentity) async throws -> SignInDecision {
        let identity = verified.identity
        let credential = SignInCredential(
            provider: identity.provider.rawValue, subject: identity.subject, email: identity.email,
            emailVerified: identity.emailVerified)
        let linked = try await store.account(provider: identity.provider, subject: identity.subject)
        let now = clock.now
        if let linked {
            var admitted = linked
            try admitted.admitSignIn(through: identity.provider, enabling: true)
            return SignInDecision(account: linked, change: .none, credential: credential).holding(verified, at: now)
        }
        guard verified.linking == nil else {
            // The provider's own rule decides in the commit; when it creates, it makes this account.
            return SignInDecision(
                account: nil, change: .created, credential: credential,
                newAccount: Self.newAccount(verified, claimingEmail: true, at: now))
        }
        let owner: Account? = if let email = identity.email { try await store.account(email: email) } else { nil }
        let decision = LinkingPolicy.decide(
            identity: identity, linked: nil, emailOwner: owner, linkByVerifiedEmail: linkByVerifiedEmail)
        switch decision {
        case .signIn(let account):
            return SignInDecision(account: account, change: .none, credential: credential).holding(verified, at: now)
        case .create(let claimEmail):
            return SignInDecision(
                account: nil, change: .created, credential: credential,
                newAccount: Self.newAccount(verified, claimingEmail: claimEmail, at: now))
        case .link(let account):
            var held = verified
            held.identity.photoURL = PhotoURL.sanitized(identity.photoURL, allowInsecure: allowInsecurePhotoURLs)
            return SignInDecision(account: account, change: .linked, credential: credential).holding(held, at: now)
        case .takeOver(let account): return SignInDecision(account: account, change: .tookOver, credential: credential)
        case .conflict(let owner):
            throw Self.emailHeldBy(owner)
        }
    }

    /// The account a provider sign-in that creates makes of `verified`: a new uid, the identity linked, its name and
    /// photo, and its email (verified as the provider says) when the account may claim it.
    static func newAccount(_ verified: VerifiedIdentity, claimingEmail claimEmail: Bool, at now: Date) -> Account {
        let identity = verified.identity
        return Account(
            id: AccountID.generate(), email: claimEmail ? identity.email : nil,
            emailVerified: claimEmail && identity.email != nil && identity.emailVerified,
            displayName: identity.displayName, photoURL: identity.photoURL, createdAt: now, lastSignInAt: now,
            identities: [verified.linkedIdentity(at: now)], origin: .provider(identity.provider))
    }

    /// The refusal of a sign-in whose email `owner` holds: 409 with the owner's sign-in methods.
    static func emailHeldBy(_ owner: Account) -> AccountError {
        var error = AccountError(
            .accountExistsWithDifferentCredential, existingProviders: LinkingPolicy.signInMethods(of: owner))
        for identity in owner.identities { error.existingKinds[identity.provider] = identity.kind }
        return error
    }

    /// The account `id`, if any (a read for the decide phase).
    func account(id: AccountID) async throws -> Account? {
        try await store.account(id: id)
    }

    /// The outbox jobs that end `uid`'s sessions beyond the broker's (``SessionRevocation``: the compatibility service's, when a
    /// service account is configured; contract section 2), for a write that ends the account's broker sessions.
    func revocationJobs(_ uid: AccountID, at date: Date) -> [OutboxJob] {
        revocation.jobs(for: uid, at: date)
    }

    /// Runs `attempt` again (up to four times) when it lost a race to a concurrent change.
    func retryingRaces<T>(_ attempt: () async throws -> T) async throws -> T {
        for _ in 0..<4 {
            do {
                return try await attempt()
            } catch let error as AccountStoreError where error.code == .alreadyExists || error.code == .notFound {
                continue
            }
        }
        throw AccountStoreError(.unavailable, "kept losing races")
    }

    /// The audit trail of a sign-in through `provider` that made `change` to `uid`: the link or takeover,
    /// then the sign-in itself, to be recorded in the sign-in's transaction. None without a request id.
    func signInEvents(
        _ change: SignInOutcome.Change, uid: AccountID?, provider: ProviderID, requestID: String?,
        enabling: Bool = false
    ) -> [AuditEvent] {
        guard let requestID else { return [] }
        let now = clock.now
        func event(_ action: AuditAction, actor: AuditEvent.Actor = .user, outcome: String = "success") -> AuditEvent {
            AuditEvent(
                time: now, uid: uid, action: action, provider: provider.rawValue, actor: actor, outcome: outcome,
                requestID: requestID)
        }
        switch change {
        case .none where enabling: return [event(.enable, actor: .system), event(.signIn)]
        case .none: return [event(.signIn)]
        case .created: return [event(.signIn, outcome: "created")]
        case .linked: return [event(.link), event(.signIn)]
        case .tookOver: return [event(.takeOver, actor: .system), event(.signIn)]
        }
    }

    /// The options of a sign-in's write: its single-use mark, its session, and the events of `change` (a nil
    /// `uid` leaves the store to stamp them with the account's).
    func signInOptions(
        _ signIn: SignInAttempt, _ change: SignInOutcome.Change, uid: AccountID?, enabling: Bool = false
    ) -> AccountWriteOptions {
        AccountWriteOptions(
            consuming: signIn.verified.singleUse, issuing: signIn.session,
            recording: signInEvents(
                change, uid: uid, provider: signIn.identity.provider, requestID: signIn.requestID, enabling: enabling))
    }

    /// Signs in to the account the identity is linked to, if any, finding it inside the sign-in's transaction
    /// (refused when it is disabled); nil, with nothing written, when the identity is linked to no account.
    func signInLinked(_ signIn: SignInAttempt, enabling: Bool = false) async throws -> SignInOutcome? {
        let identity = signIn.identity
        let now = clock.now
        // The uid is not known before the transaction: the store stamps the events with it.
        let options = signInOptions(signIn, .none, uid: nil, enabling: enabling)
        let token = signIn.verified.providerToken
        do {
            let account = try await store.update(
                linkedTo: identity.provider, subject: identity.subject, options: options
            ) {
                account in
                try account.admitSignIn(through: identity.provider, enabling: enabling)
                account.lastSignInAt = now
                account.keepProviderToken(token, for: identity)
            }
            return account.map { SignInOutcome(account: $0, change: .none) }
        } catch let error as AccountStoreError where error.code == .alreadyUsed {
            throw TokenError(.replayed)
        } catch is SignInEnables where !enabling {
            return try await signInLinked(signIn, enabling: true)
        }
    }

    /// Records a sign-in to a linked account (refused when it is disabled).
    func signInExisting(_ account: Account, signIn: SignInAttempt, enabling: Bool = false) async throws -> SignInOutcome
    {
        let identity = signIn.identity
        let now = clock.now
        let options = signInOptions(signIn, .none, uid: account.id, enabling: enabling)
        let token = signIn.verified.providerToken
        let updated: Account
        do {
            updated = try await store.update(id: account.id, options: options) { account in
                try Self.signInChange(&account, identity: identity, token: token, now: now, enabling: enabling)
            }
        } catch is SignInEnables where !enabling {
            return try await signInExisting(account, signIn: signIn, enabling: true)
        }
        return SignInOutcome(account: updated, change: .none)
    }

    /// A returning sign-in's change to a linked account: admitted (see ``Account/admitSignIn(through:enabling:)``),
    /// still linked to `identity`, its last sign-in and the provider's token kept.
    static func signInChange(
        _ account: inout Account, identity: ExternalIdentity, token: String?, now: Date, enabling: Bool
    ) throws {
        try account.admitSignIn(through: identity.provider, enabling: enabling)
        // Still linked? (A takeover may have unlinked it since the look-up: then decide again.)
        guard account.identities.contains(where: { $0.provider == identity.provider && $0.subject == identity.subject })
        else { throw AccountStoreError(.notFound, "identity unlinked") }
        account.lastSignInAt = now
        account.keepProviderToken(token, for: identity)
    }

    /// Carries out `decision` for `signIn`, whose identity is linked to no account: the general rules of
    /// ``LinkingPolicy``, also used by a provider's ``LinkingStrategy`` for the cases it shares with them.
    func apply(_ decision: LinkingDecision, signIn: SignInAttempt) async throws -> SignInOutcome {
        let identity = signIn.identity
        let now = clock.now
        let linkedIdentity = signIn.verified.linkedIdentity(at: now)
        do {
            switch decision {
            case .signIn(let account):
                return try await signInExisting(account, signIn: signIn)
            case .create(let claimEmail):
                let account = Self.newAccount(signIn.verified, claimingEmail: claimEmail, at: now)
                try await store.create(account, options: signInOptions(signIn, .created, uid: account.id))
                return SignInOutcome(account: account, change: .created)
            case .link(let owner):
                let updated = try await store.update(
                    id: owner.id, options: signInOptions(signIn, .linked, uid: owner.id)
                ) {
                    account in
                    guard !account.disabled else { throw AccountError(.userDisabled) }
                    // The decision's premises must still hold inside the transaction, else decide again.
                    guard account.email?.lowercased() == identity.email?.lowercased(), account.emailVerified,
                        account.identity(identity.provider) == nil
                    else { throw AccountStoreError(.notFound, "account changed") }
                    account.identities.append(linkedIdentity)
                    if account.displayName == nil { account.displayName = identity.displayName }
                    if account.photoURL == nil { account.photoURL = identity.photoURL }
                    account.lastSignInAt = now
                }
                return SignInOutcome(account: updated, change: .linked)
            case .takeOver(let owner):
                var takeOver = signInOptions(signIn, .tookOver, uid: owner.id)
                takeOver.revokeSessions = true
                takeOver.cutsOffCustomTokens = true
                takeOver.removesSecondFactors = true
                takeOver.enqueuing = revocationJobs(owner.id, at: now)
                let updated = try await store.update(id: owner.id, options: takeOver) { account in
                    guard !account.disabled else { throw AccountError(.userDisabled) }
                    guard account.email?.lowercased() == identity.email?.lowercased(), !account.emailVerified else {
                        throw AccountStoreError(.notFound, "account changed")
                    }
                    // Whoever created the account with an unproven email loses every way in.
                    account.password = nil
                    account.identities = [linkedIdentity]
                    account.email = identity.email
                    account.emailVerified = true
                    account.displayName = identity.displayName
                    account.photoURL = identity.photoURL
                    account.lastSignInAt = now
                }
                return SignInOutcome(account: updated, change: .tookOver)
            case .conflict(let owner):
                throw Self.emailHeldBy(owner)
            }
        } catch let error as AccountStoreError where error.code == .alreadyUsed {
            throw TokenError(.replayed)
        }
    }
}
