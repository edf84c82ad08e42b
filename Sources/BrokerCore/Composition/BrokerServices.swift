import BrokerCrypto
public import BrokerIdentity
public import BrokerModel
package import BrokerStorage
import Foundation

/// Everything the broker's surfaces use: the one composition of the broker's services, made by ``make(config:store:
/// httpClient:passwords:catalog:adminToken:clock:logger:metrics:cipher:phases:lifecycle:prefetch:)`` for `serve`,
/// the admin CLI, the in-process broker and the test harness alike, and never changed after it is made.
public struct BrokerServices: Sendable {
    /// Where providers' account events go: the broker's own ``AccountLifecycle``, another, or none (their webhook
    /// routes answer 501).
    public enum Lifecycle: Sendable {
        /// The broker's own.
        case broker
        /// Another (a test's).
        case custom(any ProviderLifecycle)
        /// None.
        case none
    }

    /// The parsed configuration.
    public let config: BrokerConfig
    /// The enabled providers.
    public let providers: ProviderRegistry
    /// The sign-in use case, shared by every surface.
    public let signIn: SignInFlow
    /// Identity-to-account mapping.
    public let accounts: AccountService
    /// What signed-in users do to their own accounts, on every surface.
    public let selfService: AccountSelfService
    /// Tokens and sessions.
    public let sessions: SessionService
    /// The broker's signing keys.
    public let keys: KeyRing
    /// Administration.
    public let admin: AdminService
    /// The admin API's authentication.
    public let adminGate: AdminGate
    /// Audit events recorded outside a store transaction.
    public let auditor: Auditor
    /// Where providers' webhooks report account events (``AccountLifecycle`` as built by ``make``; nil: their
    /// routes answer 501).
    public let lifecycle: (any ProviderLifecycle)?
    /// The store behind everything: the core's alone (the surfaces, in other modules, cannot see it).
    let store: any BrokerStore
    /// The clock.
    public let clock: any Clock
    /// Metrics.
    public let metrics: Metrics
    /// The base logger.
    public let logger: Logger
    /// Seals secret outbox payloads (`BROKER_ENCRYPTION_KEY`); nil: stored as given.
    public let outboxCipher: OutboxCipher?
    /// Wakes the outbox worker (once `serve` connects one) after a service's write committed jobs; surfaces never
    /// do (nothing connected: the worker's poll finds them).
    public let doorbell: OutboxDoorbell
    /// Action codes without mail: links for admin callers, look-ups, confirmations, email sign-in.
    public let actionCodes: ActionCodeService
    /// The email flows (contract section 9); nil without a `mail` section.
    public let emailActions: EmailActionService?
    /// The admin API's and console's read-only views: the audit log, sign-in counts.
    public let insights: AdminInsights
    /// Second factors (contract section 14); nil when `mfa.totp` is off.
    public let secondFactors: SecondFactorService?
    /// The OpenID Connect providers managed at run time (and the config file's, read-only).
    public let providerConfigs: ProviderConfigService
    /// Passkeys (contract section 15); nil when `passkeys.enabled` is false.
    public let passkeys: PasskeyService?
    /// The modules outside the core plugged into this composition (``BrokerModule``).
    public let modules: [any BrokerModule]

    /// Builds every service from a config and a store (migrated), loading the signing keys. `catalog` names the
    /// provider types config entries may use; `phases` are the sign-in's optional phases (second factor, hooks: the
    /// config's `mfa` and `hooks` when it names none); `prefetch` starts fetching the providers' keys and discovery
    /// documents in the background (not for the CLI, which fetches nothing); `modules` plug in what lives outside the
    /// core (custom tokens, their listeners' session formats, revocations elsewhere).
    package static func make(
        config: BrokerConfig, store: any BrokerStore, httpClient: any HTTPClient, passwords: any PasswordHashing,
        catalog: ProviderCatalog = .builtIn, adminToken: String? = nil, clock: any Clock = SystemClock(),
        logger: Logger, metrics: Metrics = Metrics(), cipher: OutboxCipher? = nil,
        phases: SignInPhases = SignInPhases(), lifecycle: Lifecycle = .broker, prefetch: Bool = true,
        modules: [any BrokerModule] = []
    ) async throws -> BrokerServices {
        let context = ProviderContext(
            httpClient: httpClient, clock: clock, metrics: metrics, logger: logger, clockSkew: config.clockSkew,
            allowInsecureURLs: config.allowInsecureProviderURLs, cipher: cipher)
        // The providers managed at run time are read from the store at each sign-in.
        let providers = try ProviderRegistry(config: config, catalog: catalog, context: context)
            .attaching(stored: StoredOIDCProviders(store: store, context: context))
        // Fetched in the background: a slow or dead issuer must not hold up the start (its sign-ins wait for the
        // fetch under way, or start their own).
        if prefetch { Task { await providers.prefetch() } }
        // The store was made with its event routing (``EventAnnouncing``); one made for other settings would send
        // the events of another configuration, or none.
        guard ((store.announcer as? EventRouting)?.settings ?? EventSettings()) == config.events else {
            throw ConfigError(field: "events", "the store was not made with this configuration's events.endpoints")
        }
        let keys = KeyRing(store: store, clock: clock, algorithm: .es256, tokenLifetime: config.idTokenTTL)
        try await keys.load()
        var sessions = SessionService(
            store: store, keys: keys, clock: clock, settings: SessionSettings(config: config),
            customTokens: modules.lazy.compactMap(\.customTokens).first)
        for format in modules.flatMap({ $0.sessionFormats(providers: providers) }) { sessions.register(format) }
        let secondFactors = try secondFactorService(config: config, store: store, cipher: cipher, clock: clock)
        var phases = phases
        if phases.secondFactor == nil, let secondFactors {
            phases.secondFactor = TOTPSecondFactorPhase(service: secondFactors)
        }
        let revocation = SessionRevocation(elsewhere: modules.compactMap(\.sessionRevoking))
        let deletion = AccountDeletion(providers: providers, revocation: revocation, cipher: cipher)
        let accounts = try await AccountService(
            store: store, clock: clock, linkByVerifiedEmail: config.linkByVerifiedEmail, passwords: passwords,
            allowInsecurePhotoURLs: config.allowInsecureProviderURLs, revocation: revocation,
            deletion: deletion, passwordGuards: providers.passwordGuards,
            secondFactors: secondFactors == nil ? nil : store, passkeys: config.passkeys.enabled ? store : nil)
        let auditor = Auditor(store: store, clock: clock, logger: logger)
        let doorbell = OutboxDoorbell()
        let actionCodes = ActionCodeService(
            accounts: store, codes: store, passwords: passwords, clock: clock, issuer: config.issuer,
            revocation: revocation, doorbell: doorbell, mail: config.mail, cipher: cipher)
        let emailActions = config.mail.map {
            EmailActionService(
                accounts: store, codes: store, passwords: passwords, clock: clock, settings: $0, issuer: config.issuer,
                revocation: revocation, cipher: cipher, doorbell: doorbell)
        }
        let accountLifecycle: (any ProviderLifecycle)? =
            switch lifecycle {
            case .broker: AccountLifecycle(store: store, clock: clock, policy: config.onUnlink, deletion: deletion)
            case .custom(let custom): custom
            case .none: nil
            }
        if phases.hooks == nil, !config.hooks.isEmpty {
            phases.hooks = WebhookSignInHooks(
                settings: config.hooks, client: httpClient, clock: clock, logger: logger, metrics: metrics,
                allowInsecurePhotoURLs: config.allowInsecureProviderURLs)
        }
        let passkeys = passkeyService(config: config, store: store, clock: clock)
        let signIn = SignInFlow(
            providers: providers, accounts: accounts, sessions: sessions, auditor: auditor, metrics: metrics,
            actionCodes: actionCodes, doorbell: doorbell, phases: phases,
            guests: GuestService(
                settings: config.anonymous, store: store, accounts: accounts, deletion: deletion, clock: clock),
            secondFactors: secondFactors, passkeys: passkeys)
        return BrokerServices(
            config: config, providers: providers, signIn: signIn, accounts: accounts,
            selfService: AccountSelfService(
                accounts: accounts, sessions: sessions, signIn: signIn, secondFactors: secondFactors),
            sessions: sessions, keys: keys,
            admin: AdminService(
                store: store, sessions: sessions, clock: clock, logger: logger,
                revocation: revocation, deletion: deletion, passwords: passwords,
                allowInsecurePhotoURLs: config.allowInsecureProviderURLs),
            adminGate: AdminGate(token: adminToken, clock: clock), auditor: auditor,
            lifecycle: accountLifecycle, store: store, clock: clock, metrics: metrics, logger: logger,
            outboxCipher: cipher, doorbell: doorbell,
            actionCodes: actionCodes, emailActions: emailActions, insights: AdminInsights(store: store, clock: clock),
            secondFactors: secondFactors,
            providerConfigs: ProviderConfigService(
                store: store, cipher: cipher, clock: clock, auditor: auditor, providers: providers, config: config),
            passkeys: passkeys, modules: modules)
    }

    /// The passkey service when `passkeys.enabled` is true.
    static func passkeyService(config: BrokerConfig, store: any BrokerStore, clock: any Clock) -> PasskeyService? {
        guard config.passkeys.enabled else { return nil }
        return PasskeyService(
            store: store, clock: clock, settings: config.passkeys,
            rpName: config.passkeys.rpName ?? config.mail?.appName ?? config.projectID)
    }

    /// The second-factor service when `mfa.totp` is enabled; a ``ConfigError`` when it is without an encryption key
    /// (`check-config` refuses it too).
    static func secondFactorService(
        config: BrokerConfig, store: any BrokerStore, cipher: OutboxCipher?, clock: any Clock
    ) throws -> SecondFactorService? {
        guard config.mfa.totpEnabled else { return nil }
        guard let cipher else {
            throw ConfigError(field: "mfa.totp.enabled", "needs BROKER_ENCRYPTION_KEY or BROKER_ENCRYPTION_KEY_FILE")
        }
        return SecondFactorService(
            store: store, cipher: cipher, clock: clock, settings: config.mfa,
            issuer: config.mfa.issuer ?? config.mail?.appName ?? config.projectID)
    }
}

extension BrokerServices {
    /// Throws when the storage does not answer a trivial query: what readiness reports.
    public var storageCheck: @Sendable () async throws -> Void {
        let store = store
        return { try await store.checkStorage() }
    }

    /// Opens the admin console's sessions, or answers nil when no admin token is configured (then no session
    /// authenticates).
    public var consoleSessionsOpener: @Sendable () async -> ConsoleSessions? {
        let (gate, store, clock) = (adminGate, store, clock)
        return { await gate.consoleSessionKey.map { ConsoleSessions(store: store, clock: clock, key: $0) } }
    }
}
