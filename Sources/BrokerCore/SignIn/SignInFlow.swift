public import BrokerIdentity
public import BrokerModel
import BrokerStorage
public import Foundation

/// The sign-in use case, once for every method and every surface (`design/sign-in-pipeline.md`): ``run(_:_:)``
/// is the one skeleton, with the phases
///
/// 1. **authenticate**: the ``SignInMethod`` verifies what was presented; nothing is written;
/// 2. **decide**: the method reads the account the sign-in reaches and what it will do to it, only when a phase
///    below needs it (``SignInPhases``: none by default, and then this phase reads nothing);
/// 3. **second factor**: an existing account's ``SecondFactorPhase`` may answer a pending sign-in instead
///    (``SignInStep/secondFactorRequired(_:)``), storing nothing of the sign-in;
/// 4. **hooks**: the app's ``SignInHooks`` may refuse or amend the sign-in, outside any transaction;
/// 5. **commit**: the method decides again and writes, in one transaction, the account change, the session, the
///    single-use mark, the audit event and the outbox jobs;
/// 6. **tokens**: the session's tokens in the surface's format;
/// 7. **count**: one count of the outcome; a refusal at any phase is also audited, once, here, with the method's
///    label and the refusal's code, and stores nothing else.
///
/// ``renew(_:provider:because:surface:continuing:storedBy:)`` makes a new session for an account already signed in
/// (a password change, a link): no hook, no second factor.
public struct SignInFlow: Sendable {
    /// The enabled providers.
    public let providers: ProviderRegistry
    let accounts: AccountService
    let sessions: SessionService
    let auditor: Auditor
    let metrics: Metrics
    let doorbell: OutboxDoorbell?
    /// The optional phases (second factor, hooks).
    let phases: SignInPhases
    /// Guest accounts (contract section 13); nil: none are made.
    public let guests: GuestService?
    /// Email sign-in codes (the email-link sign-in, link and upgrade).
    let actionCodes: ActionCodeService
    /// Second factors (contract section 14); nil when `mfa.totp` is off: a held sign-in cannot be finished.
    let secondFactors: SecondFactorService?
    /// Passkeys (contract section 15); nil when they are off.
    let passkeys: PasskeyService?

    /// Creates the flow from the composition's collaborators; `doorbell` wakes the outbox after a sign-in that queued
    /// jobs.
    public init(
        providers: ProviderRegistry, accounts: AccountService, sessions: SessionService, auditor: Auditor,
        metrics: Metrics, actionCodes: ActionCodeService, doorbell: OutboxDoorbell? = nil,
        phases: SignInPhases = SignInPhases(), guests: GuestService? = nil,
        secondFactors: SecondFactorService? = nil, passkeys: PasskeyService? = nil
    ) {
        self.actionCodes = actionCodes
        self.secondFactors = secondFactors
        self.passkeys = passkeys
        self.guests = guests
        self.phases = phases
        self.doorbell = doorbell
        self.providers = providers
        self.accounts = accounts
        self.sessions = sessions
        self.auditor = auditor
        self.metrics = metrics
    }

    /// The enabled provider `id` (of the config file, or managed at run time: ``ProviderRegistry/resolve(_:)``),
    /// or ``SignInError/Code/providerNotEnabled``.
    public func provider(_ id: ProviderID) async throws -> any IdentityProvider {
        guard let provider = try await providers.resolve(id) else { throw SignInError(.providerNotEnabled) }
        return provider
    }

    /// Runs a sign-in with `method`: the only place that asks for a second factor, runs hooks, grants, mints,
    /// counts and audits a refusal.
    public func run<Method: SignInMethod>(_ method: Method, _ context: SignInContext) async throws -> SignInStep {
        var proven: Method.Proof?
        do {
            let proof = try await method.authenticate(context)
            proven = proof
            var claims = method.sessionClaims(proof)
            var amendment: SignInAmendment?
            if phases.needDecision {
                let decision = try await method.decide(proof, context)
                let provider = method.sessionProvider(proof, on: context.surface)
                if let pending = try await secondFactor(method, decision, provider: provider, context) {
                    count(method, outcome: "MFA_REQUIRED")
                    return .secondFactorRequired(pending)
                }
                if let hooks = phases.hooks {
                    let answer = try await hooks.before(decision, method: method.label, context: context)
                    claims = Self.merging(answer.sessionClaims, into: claims)
                    amendment = answer
                }
            }
            var (refreshToken, grant) = sessions.grant(
                provider: method.sessionProvider(proof, on: context.surface), surface: context.surface, claims: claims)
            grant.amendment = amendment
            var committed = try await method.commit(proof, session: grant, context: context)
            doorbell?.ring(committed.jobs)
            // The store applied the amendment in the commit's transaction; a commit that answers the account it
            // created as given (not as stored) gets it here too.
            amendment?.apply(to: &committed.account)
            // A hook that disabled the account: stored so, with no session (``AccountWriteOptions/amending(_:)``).
            if amendment?.disabled == true, committed.account.disabled { throw AccountError(.userDisabled) }
            let tokens = try await sessions.tokens(for: committed.account, grant: grant, refreshToken: refreshToken)
            count(method, outcome: committed.change == .created ? "created" : "success")
            return .signedIn(
                SignInResult(
                    account: committed.account, change: committed.change, tokens: tokens,
                    signInProvider: grant.signInProvider, jobs: committed.jobs))
        } catch {
            guard method.countsRefusal(error) else { throw error }
            let outcome = Self.outcomeCode(error)
            count(method, outcome: outcome)
            await auditor.record(
                method.refusalAction, uid: proven.flatMap(method.uid(of:)), provider: method.label, outcome: outcome,
                requestID: context.requestID)
            throw error
        }
    }

    /// The second-factor phase: asked only for a sign-in to an existing account that takes nothing over, by a
    /// method that is asked (a takeover or a provider's legacy link removes the account's factors instead).
    private func secondFactor<Method: SignInMethod>(
        _ method: Method, _ decision: SignInDecision, provider: String, _ context: SignInContext
    ) async throws -> PendingSecondFactor? {
        guard let phase = phases.secondFactor, method.secondFactor == .asked, decision.account != nil,
            decision.change == .none || decision.change == .linked
        else { return nil }
        return try await phase.challenge(decision, method: provider, context: context)
    }

    /// `amended` merged over the JSON object text `claims`.
    static func merging(_ amended: [String: JSONValue], into claims: String?) -> String? {
        guard !amended.isEmpty else { return claims }
        var members = claims.flatMap { JSONValue.parse(Array($0.utf8))?.objectValue } ?? [:]
        members.merge(amended) { _, new in new }
        return String(decoding: JSONValue.object(members).serialized(), as: UTF8.self)
    }

    /// A new session for `account`, already signed in, whose change `write` stores with the session's grant in one
    /// transaction (a password change) or, when nil, stored on its own (a link, new tokens after an update).
    /// `authTime` is the sign-in time of the session the renewal continues, kept: only a sign-in (and a second
    /// factor completing it) makes a session recent, never a link, an upgrade or a change (contract section 4), so
    /// there is no default. Runs no hook and asks for no second factor; counted by `reason`
    /// (`broker_session_renewals_total`).
    public func renew(
        _ account: Account, provider: String, because reason: RenewalReason, surface: SessionSurface,
        continuing authTime: Date, storedBy write: (@Sendable (SessionGrant) async throws -> Account)? = nil
    ) async throws -> SignInResult {
        let (refreshToken, grant) = sessions.grant(provider: provider, surface: surface, authTime: authTime)
        let stored: Account
        if let write {
            stored = try await write(grant)
        } else {
            try await sessions.store(grant, for: account.id)
            stored = account
        }
        let tokens = try await sessions.tokens(for: stored, grant: grant, refreshToken: refreshToken)
        metrics.increment("broker_session_renewals_total", labels: ["reason": reason.rawValue])
        return SignInResult(account: stored, change: .none, tokens: tokens, signInProvider: provider)
    }

    private func count<Method: SignInMethod>(_ method: Method, outcome: String) {
        metrics.increment(method.counter, labels: ["provider": method.label, "outcome": outcome])
    }

    // MARK: - The methods, by the names the surfaces call them

    /// Signs in with a provider credential (contract section 2).
    public func signIn(_ request: SignInRequest) async throws -> SignInResult {
        let provider = try await resolve(request)
        let method = ProviderTokenSignIn(request: request, provider: provider, accounts: accounts)
        return try await run(method, SignInContext(requestID: request.requestID, surface: request.surface)).result
    }

    /// Creates an email and password account and signs it in (contract section 4), on `surface`'s listener.
    public func signUp(
        email: String, password: String, displayName: String?, requestID: String, surface: SessionSurface = .native
    ) async throws -> SignInResult {
        let method = PasswordSignUp(email: email, password: password, displayName: displayName, accounts: accounts)
        return try await run(method, SignInContext(requestID: requestID, surface: surface)).result
    }

    /// Signs in with email and password (contract section 4), on `surface`'s listener.
    public func signIn(
        email: String, password: String, requestID: String, surface: SessionSurface = .native
    ) async throws -> SignInResult {
        let method = PasswordSignIn(email: email, password: password, accounts: accounts)
        return try await run(method, SignInContext(requestID: requestID, surface: surface)).result
    }

    /// Signs in with a custom token that `verify` checks: its uid is created when unknown (`isNewUser`); a token minted
    /// up to the uid's cutoff is refused. The token's `claims` go into every ID token of the session (as the
    /// compatibility contract puts them), not on the account.
    public func signIn(
        customToken verify: @escaping @Sendable () async throws -> CustomTokenProof, requestID: String,
        surface: SessionSurface
    ) async throws -> SignInResult {
        let method = CustomTokenSignIn(verify: verify, accounts: accounts)
        return try await run(method, SignInContext(requestID: requestID, surface: surface)).result
    }

    /// Signs in with an email sign-in code; the result carries the outbox jobs queued with it (a takeover's
    /// revocation of the sessions beyond the broker's).
    public func signIn(
        emailLinkCode code: String, email: String, requestID: String, surface: SessionSurface = .native
    ) async throws -> SignInResult {
        let method = EmailLinkSignIn(email: email, code: code, actionCodes: actionCodes)
        return try await run(method, SignInContext(requestID: requestID, surface: surface)).result
    }

    /// Makes a guest and signs it in (contract section 13), counted against the request's client address.
    public func signInAsGuest(requestID: String, surface: SessionSurface = .native) async throws -> SignInResult {
        let method = GuestSignIn(guests: guests, address: RequestOrigin.current?.clientAddress ?? "")
        return try await run(method, SignInContext(requestID: requestID, surface: surface)).result
    }

    /// Upgrades the signed-in `guest` in place with another provider's identity (contract section 13): the same
    /// uid, sessions and claims, no longer a guest, and a new session of that provider stored with the change, its
    /// `auth_time` the guest session's. Counted (`broker_links_total`) and, refused, audited (`link`) once, as a
    /// link is.
    public func upgrade(_ guest: SignedInUser, _ request: SignInRequest) async throws -> SignInResult {
        let authTime = try guest.sessionAuthTime()
        let account = guest.account
        return try await linking(account.id, request) { verified in
            let guests = try guestService()
            // The session's format names the provider on its listener (``SessionFormat/signInProvider(_:)``).
            return try await renew(
                account, provider: request.provider.rawValue, because: .upgrade, surface: request.surface,
                continuing: authTime
            ) { grant in
                try await guests.upgrade(account.id, linking: verified, session: grant, requestID: request.requestID)
            }
        }
    }

    /// Upgrades `guest` in place with an email and password (`POST /v1/signup` with the guest's ID token): the
    /// same uid, sessions and claims, no longer a guest, and a new `password` session stored with the change.
    /// Counted (`broker_signups_total`, outcome `upgraded`) and, refused, audited (`sign_up`) once.
    public func upgrade(
        _ guest: SignedInUser, email: String, password: String, displayName: String?, requestID: String,
        surface: SessionSurface = .native
    ) async throws -> SignInResult {
        let uid = guest.account.id
        return try await upgradeBySignUp(
            guest, label: ProviderID.password.rawValue, requestID: requestID, surface: surface
        ) { [self] grant in
            try await guestService().upgrade(
                uid, email: email, password: password, displayName: displayName, session: grant,
                requestID: requestID)
        }
    }

    /// A guest's upgrade by a sign-up with its ID token (`POST /v1/signup`, `POST /v1/signup/passkey`): a new
    /// `label` session that `write` stores with the upgrade, in one transaction, its `auth_time` the guest
    /// session's. Counted (`broker_signups_total`, outcome `upgraded`) and, refused, audited (`sign_up`) once.
    func upgradeBySignUp(
        _ guest: SignedInUser, label: String, requestID: String, surface: SessionSurface,
        storedBy write: @escaping @Sendable (SessionGrant) async throws -> Account
    ) async throws -> SignInResult {
        let authTime = try guest.sessionAuthTime()
        return try await counted(
            "broker_signups_total", label: label, success: "upgraded", refusal: .signUp, uid: guest.account.id,
            requestID: requestID
        ) {
            try await renew(
                guest.account, provider: label, because: .upgrade, surface: surface, continuing: authTime,
                storedBy: write)
        }
    }

    /// Upgrades `guest` in place with an email sign-in code: the code is used, the address becomes the account's,
    /// verified, and the account stops being a guest, in one transaction with the new session
    /// (``ActionCodeService/upgradeGuest(_:email:code:session:requestID:)``). Counted (`broker_links_total`, label
    /// `emailLink`) and, refused, audited (`link`) once. Its sessions' `sign_in_provider` is `password`, as an
    /// email-link sign-in's.
    public func upgrade(
        _ guest: SignedInUser, emailLinkCode code: String, email: String, requestID: String, surface: SessionSurface
    ) async throws -> SignInResult {
        let (uid, actionCodes) = (guest.account.id, actionCodes)
        return try await emailLinkChange(guest, because: .upgrade, requestID: requestID, surface: surface) { grant in
            _ = try guestService()
            return try await actionCodes.upgradeGuest(
                uid, email: email, code: code, session: grant, requestID: requestID)
        }
    }

    /// Links an email sign-in code to the signed-in `user`, no guest, whose sign-in is recent (contract section 4)
    /// (``ActionCodeService/linkEmail(_:email:code:session:requestID:)``), with a new `password` session stored with
    /// the link, its `auth_time` the asking session's. Counted (`broker_links_total`, label `emailLink`) and,
    /// refused, audited (`link`) once.
    public func link(
        _ user: SignedInUser, emailLinkCode code: String, email: String, requestID: String, surface: SessionSurface
    ) async throws -> SignInResult {
        let (uid, actionCodes) = (user.account.id, actionCodes)
        return try await emailLinkChange(user, because: .link, requestID: requestID, surface: surface) { grant in
            try await actionCodes.linkEmail(uid, email: email, code: code, session: grant, requestID: requestID)
        }
    }

    /// The change an email sign-in code makes to the signed-in `user` (`write`: a guest's upgrade, a link), its
    /// recent sign-in checked first, stored with a new `password` session (an email-link sign-in's
    /// `sign_in_provider`) that keeps the asking session's `auth_time`, renewed `because`. Counted
    /// (`broker_links_total`, label `emailLink`) and, refused, audited (`link`) once.
    private func emailLinkChange(
        _ user: SignedInUser, because reason: RenewalReason, requestID: String, surface: SessionSurface,
        _ write: @escaping @Sendable (SessionGrant) async throws -> Account
    ) async throws -> SignInResult {
        try await counted(
            "broker_links_total", label: "emailLink", success: "success", refusal: .link, uid: user.account.id,
            requestID: requestID
        ) {
            try sessions.requireRecentSignIn(user)
            return try await renew(
                user.account, provider: ProviderID.password.rawValue, because: reason, surface: surface,
                continuing: try user.sessionAuthTime(), storedBy: write)
        }
    }

    /// The enabled provider `request` names: the one its surface found, else looked up (nil when none is).
    private func resolve(_ request: SignInRequest) async throws -> (any IdentityProvider)? {
        if let resolved = request.resolved { return resolved }
        return try await providers.resolve(request.provider)
    }

    /// The guest service, or ``Refusal/notAGuest`` (no guests are made, so no account is one).
    private func guestService() throws -> GuestService {
        guard let guests else { throw GuestError.notAGuest }
        return guests
    }

    /// Links another provider's identity to the signed-in `user`'s account (its single-use mark recorded with the
    /// link), and records the `link` event. The user's sign-in must be recent (contract section 4: a stale or
    /// stolen session adds no way in), checked before the provider is asked; a refusal is counted
    /// (`broker_links_total`) and audited (`link`) once.
    public func link(_ user: SignedInUser, _ request: SignInRequest) async throws -> Account {
        let uid = user.account.id
        return try await linking(uid, request) { verified in
            try await accounts.link(uid, verified, requestID: request.requestID)
        } checkingFirst: {
            try sessions.requireRecentSignIn(user)
        }
    }

    /// What a signed-in user's link became.
    public enum LinkOutcome: Sendable {
        /// A guest's link: its upgrade in place, answered with the new session (contract section 13).
        case upgraded(SignInResult)
        /// The identity linked to the account.
        case linked(Account)
    }

    /// Links the identity `request` proves to the signed-in `user` (``link(_:_:)``), or, when `user` is a guest,
    /// upgrades it in place with it (``upgrade(_:_:)``): the use case decides, for every surface.
    public func linkOrUpgrade(_ user: SignedInUser, _ request: SignInRequest) async throws -> LinkOutcome {
        if user.account.isAnonymous { return .upgraded(try await upgrade(user, request)) }
        return .linked(try await link(user, request))
    }

    /// ``linkOrUpgrade(_:_:)`` answered with a session either way: a link's is ``linkRenewing(_:_:)``'s.
    public func linkOrUpgradeRenewing(_ user: SignedInUser, _ request: SignInRequest) async throws -> SignInResult {
        if user.account.isAnonymous { return try await upgrade(user, request) }
        return try await linkRenewing(user, request)
    }

    /// Links an email sign-in code to the signed-in `user` (``link(_:emailLinkCode:email:requestID:surface:)``), or,
    /// when `user` is a guest, upgrades it in place with it (``upgrade(_:emailLinkCode:email:requestID:surface:)``),
    /// which needs guests enabled (`providerNotEnabled` otherwise, before anything is counted).
    public func linkOrUpgrade(
        _ user: SignedInUser, emailLinkCode code: String, email: String, requestID: String, surface: SessionSurface
    ) async throws -> SignInResult {
        guard user.account.isAnonymous else {
            return try await link(user, emailLinkCode: code, email: email, requestID: requestID, surface: surface)
        }
        guard guests?.settings.enabled == true else {
            throw SignInError(.providerNotEnabled, "anonymous accounts are not enabled")
        }
        return try await upgrade(user, emailLinkCode: code, email: email, requestID: requestID, surface: surface)
    }

    /// ``link(_:_:)`` answered with a new session of the linked provider on `request`'s surface that keeps the
    /// asking session's `auth_time`, stored in the link's own transaction: the link and its session, or neither.
    public func linkRenewing(_ user: SignedInUser, _ request: SignInRequest) async throws -> SignInResult {
        let uid = user.account.id
        let authTime = try user.sessionAuthTime()
        return try await linking(uid, request) { verified in
            try await renew(
                user.account, provider: request.provider.rawValue, because: .link, surface: request.surface,
                continuing: authTime
            ) { grant in
                try await accounts.link(uid, verified, requestID: request.requestID, session: grant)
            }
        } checkingFirst: {
            try sessions.requireRecentSignIn(user)
        }
    }

    /// Verifies `request`'s credential with the provider it names and makes `change` of it to the signed-in account
    /// `uid` (a link, a guest's upgrade): counted (`broker_links_total`, under the provider) and, refused, audited
    /// (`link`) once; an unknown provider's refusal is not counted (its name comes from the caller). `check` runs
    /// before the credential is verified (a link's recent sign-in), its refusal counted and audited the same way.
    private func linking<T>(
        _ uid: AccountID, _ request: SignInRequest, _ change: (VerifiedIdentity) async throws -> T,
        checkingFirst check: () throws -> Void = {}
    ) async throws -> T {
        let resolved = try await resolve(request)
        return try await counted(
            "broker_links_total", label: request.provider.rawValue, success: "success", refusal: .link, uid: uid,
            requestID: request.requestID, countsRefusal: resolved != nil
        ) {
            guard let provider = resolved else { throw SignInError(.providerNotEnabled) }
            try check()
            return try await change(try await provider.verifyRecordingKind(request.credential, hints: request.hints))
        }
    }

    /// Runs `change`, a change to the signed-in account `uid` (a link, a guest's upgrade), counting its outcome in
    /// `counter` under `label` (`success` when it succeeds) and auditing a refusal once as `refusal`, with the
    /// refusal's code; `countsRefusal` false leaves a refusal uncounted (an unknown provider's name).
    func counted<T>(
        _ counter: String, label: String, success: String, refusal: AuditAction, uid: AccountID, requestID: String,
        countsRefusal: Bool = true, _ change: () async throws -> T
    ) async throws -> T {
        do {
            let result = try await change()
            metrics.increment(counter, labels: ["provider": label, "outcome": success])
            return result
        } catch {
            guard countsRefusal else { throw error }
            let outcome = Self.outcomeCode(error)
            metrics.increment(counter, labels: ["provider": label, "outcome": outcome])
            await auditor.record(refusal, uid: uid, provider: label, outcome: outcome, requestID: requestID)
            throw error
        }
    }

    /// The contract's code for a refused sign-in (section 6), as metrics and audit events name outcomes whatever
    /// surface carried the request: the refusal's own ``Refusal/code`` (`INTERNAL` for an internal failure).
    static func outcomeCode(_ error: any Error) -> String { Refusal.outcome(of: error) }
}

extension ProviderID {
    /// The email and password sign-in method.
    public static let password = ProviderID("password")
}
