import BrokerCrypto
import Foundation

/// Everything the broker's surfaces use.
public struct BrokerServices: Sendable {
    /// The parsed configuration.
    public var config: BrokerConfig
    /// The enabled providers.
    public var providers: ProviderRegistry
    /// The sign-in use case, shared by every surface.
    public var signIn: SignInFlow
    /// Identity-to-account mapping.
    public var accounts: AccountService
    /// Tokens and sessions.
    public var sessions: SessionService
    /// The broker's signing keys.
    public var keys: KeyRing
    /// Administration.
    public var admin: AdminService
    /// The admin API's authentication.
    public var adminGate: AdminGate
    /// Audit events recorded outside a store transaction.
    public var auditor: Auditor
    /// Firebase Auth's admin API (revoking a uid's Firebase sessions), when a service account is configured.
    public var firebaseAdmin: FirebaseAdminClient?
    /// Where providers' webhooks report account events (``AccountLifecycle`` as built by ``make``; nil: their
    /// routes answer 501).
    public var lifecycle: (any ProviderLifecycle)?
    /// The store behind everything.
    public var store: any BrokerStore
    /// The clock.
    public var clock: any Clock
    /// Metrics.
    public var metrics: Metrics
    /// The base logger.
    public var logger: Logger
    /// Seals secret outbox payloads (`BROKER_ENCRYPTION_KEY`); nil: stored as given.
    public var outboxCipher: OutboxCipher? = nil
    /// Wakes the outbox worker (once `serve` connects one) after a service's write committed jobs; surfaces never
    /// do (nothing connected: the worker's poll finds them).
    public let doorbell: OutboxDoorbell
    /// The Firebase service account (`firebase.serviceAccountFile`), when configured: the Firebase listener checks
    /// custom tokens against its key.
    public var firebaseServiceAccount: FirebaseServiceAccount? = nil
    /// Action codes without mail: links for admin callers, look-ups, confirmations, email sign-in.
    public var actionCodes: ActionCodeService
    /// The email flows (contract section 9); nil without a `mail` section.
    public var emailActions: EmailActionService?
    /// The admin API's and console's read-only views: the audit log, sign-in counts.
    public var insights: AdminInsights

    /// Builds every service from a config and a store (migrated), loading the signing keys. `catalog` names the
    /// provider types config entries may use; `phases` are the sign-in's optional phases (second factor, hooks).
    public static func make(
        config: BrokerConfig, store: any BrokerStore, httpClient: any HTTPClient, passwords: any PasswordHashing,
        catalog: ProviderCatalog = .builtIn, adminToken: String? = nil, clock: any Clock = SystemClock(),
        logger: Logger, metrics: Metrics = Metrics(), cipher: OutboxCipher? = nil,
        phases: SignInPhases = SignInPhases()
    ) async throws -> BrokerServices {
        let context = ProviderContext(
            httpClient: httpClient, clock: clock, metrics: metrics, logger: logger, clockSkew: config.clockSkew,
            allowInsecureURLs: config.allowInsecureProviderURLs, cipher: cipher)
        let providers = try ProviderRegistry(config: config, catalog: catalog, context: context)
        // Fetched in the background: a slow or dead issuer must not hold up the start (its sign-ins wait for the
        // fetch under way, or start their own).
        Task { await providers.prefetch() }
        let serviceAccount = try config.firebaseServiceAccountFile.map {
            try FirebaseServiceAccount(contentsOf: $0, allowInsecureURLs: config.allowInsecureProviderURLs)
        }
        let firebase = serviceAccount.map {
            FirebaseCustomTokenMinter(account: $0, clock: clock, ttl: config.customTokenTTL)
        }
        let firebaseAdmin = serviceAccount.map {
            FirebaseAdminClient(
                account: $0, projectID: config.projectID, apiBaseURL: config.firebaseAPIBaseURL, client: httpClient,
                clock: clock)
        }
        let keys = KeyRing(store: store, clock: clock, algorithm: .es256, tokenLifetime: config.idTokenTTL)
        try await keys.load()
        var sessions = SessionService(
            store: store, keys: keys, clock: clock, settings: SessionSettings(config: config), firebase: firebase)
        sessions.firebaseProviderName = { id in providers.provider(id)?.firebaseProviderID(for: .idToken) ?? id.rawValue }
        let revocation = SessionRevocation(firebase: firebaseAdmin != nil)
        let deletion = AccountDeletion(providers: providers, revocation: revocation, cipher: cipher)
        let accounts = try await AccountService(
            store: store, clock: clock, linkByVerifiedEmail: config.linkByVerifiedEmail, passwords: passwords,
            allowInsecurePhotoURLs: config.allowInsecureProviderURLs, revocation: revocation,
            deletion: deletion, passwordGuards: providers.passwordGuards)
        let auditor = Auditor(store: store, clock: clock, logger: logger)
        let doorbell = OutboxDoorbell()
        let actionCodes = ActionCodeService(
            accounts: store, codes: store, passwords: passwords, clock: clock, issuer: config.issuer,
            revocation: revocation, doorbell: doorbell)
        let emailActions = config.mail.map {
            EmailActionService(
                accounts: store, codes: store, passwords: passwords, clock: clock, settings: $0, issuer: config.issuer,
                revocation: revocation, cipher: cipher, doorbell: doorbell)
        }
        var services = BrokerServices(
            config: config, providers: providers,
            signIn: SignInFlow(
                providers: providers, accounts: accounts, sessions: sessions, auditor: auditor, metrics: metrics,
                doorbell: doorbell, phases: phases,
                guests: GuestService(
                    settings: config.anonymous, store: store, accounts: accounts, deletion: deletion, clock: clock)),
            accounts: accounts, sessions: sessions, keys: keys,
            admin: AdminService(
                store: store, sessions: sessions, clock: clock, logger: logger,
                revocation: revocation, deletion: deletion, passwords: passwords,
                allowInsecurePhotoURLs: config.allowInsecureProviderURLs),
            adminGate: AdminGate(token: adminToken, clock: clock), auditor: auditor, firebaseAdmin: firebaseAdmin,
            lifecycle: AccountLifecycle(store: store, clock: clock, policy: config.onUnlink, deletion: deletion),
            store: store, clock: clock, metrics: metrics, logger: logger, outboxCipher: cipher, doorbell: doorbell,
            actionCodes: actionCodes, emailActions: emailActions, insights: AdminInsights(store: store, clock: clock))
        services.firebaseServiceAccount = serviceAccount
        return services
    }
}

extension BrokerServices {
    /// Records an audit event of a request; a failure to record is logged, never turned into a failed request.
    func audit(
        _ action: AuditAction, uid: AccountID?, provider: String? = nil, actor: AuditEvent.Actor = .user,
        outcome: String = "success", context: RequestContext
    ) async {
        await auditor.record(
            action, uid: uid, provider: provider, actor: actor, outcome: outcome, requestID: context.requestID)
    }
}

/// The broker's HTTP application: the surfaces it serves, composed on one router, inside one middleware that
/// gives every request an id, one log line and its metrics.
public struct BrokerApp: Sendable {
    /// The services behind the routes.
    public let services: BrokerServices
    private var router: Router
    private let fallback: any Surface
    private let cors: any CrossOriginPolicy

    /// Creates the application with the broker's own surfaces: native `/v1`, admin, operations.
    public init(services: BrokerServices) {
        self.init(
            services: services,
            surfaces: [
                NativeSurface(services: services), AdminSurface(services: services),
                OperationsSurface(services: services),
            ])
    }

    /// Creates the application serving `surfaces`; the first renders answers to unmatched requests. Its
    /// cross-origin rules are those of the first surface that has its own (``Surface/crossOrigin``), else
    /// `cors.allowedOrigins`.
    public init(services: BrokerServices, surfaces: [any Surface]) {
        self.services = services
        cors =
            surfaces.lazy.compactMap(\.crossOrigin).first
            ?? CORSPolicy(allowedOrigins: services.config.corsAllowedOrigins)
        fallback = surfaces.first ?? NativeSurface(services: services)
        router = Router()
        for surface in surfaces {
            router.errorRenderer = { surface.render($0) }
            surface.mount(on: &router)
        }
        services.metrics.describe("broker_http_requests_total", type: "counter", help: "HTTP requests by route and status.")
        services.metrics.describe("broker_signins_total", type: "counter", help: "Sign-ins by provider and outcome.")
        services.metrics.describe(
            "broker_provider_call_seconds", type: "histogram", help: "Latency of calls to identity providers.")
        services.metrics.describe("broker_jwks_refreshes_total", type: "counter", help: "JWKS fetches by provider and outcome.")
        services.metrics.describe(
            "broker_discovery_refreshes_total", type: "counter",
            help: "OpenID Connect discovery document fetches by provider and outcome.")
        services.metrics.describe("broker_signups_total", type: "counter", help: "Email and password accounts created.")
        services.metrics.describe(
            "broker_links_total", type: "counter",
            help: "Providers linked to signed-in accounts, by provider and outcome.")
        services.metrics.describe(
            "broker_session_renewals_total", type: "counter",
            help: "New sessions for signed-in accounts (a password change, a link), by reason.")
    }

    /// The response to `error` in the dialect of the surface this application serves first (the one that answers
    /// unmatched requests), for what the HTTP server refuses itself before any route runs (a body over the
    /// limit); the server adds `X-Request-Id`.
    public func render(_ error: any Error) -> HTTPResponse { fallback.render(error).response }

    /// The routes the surfaces mounted: method and pattern (`{name}` for a parameter), as the router matches them.
    public var routes: [(method: String, pattern: String)] { router.endpoints }

    /// Handles one request; never throws: errors become the surface's error bodies.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        var request = request
        request.clientAddress = services.config.trustedProxies.clientAddress(
            peer: request.peerAddress, forwardedFor: request.headers["x-forwarded-for"])
        let requestID = BrokerApp.requestID(from: request.headers["x-request-id"])
        let logger = services.logger.with(["requestId": requestID])
        var response: HTTPResponse
        var route = "unmatched"
        var cause: String?
        if let preflight = cors.preflightResponse(to: request) {
            response = preflight
            route = "preflight"
        } else if let match = router.match(method: request.method, path: request.path) {
            route = match.route.pattern
            // The audit events this request causes record where it came from.
            let origin = RequestOrigin(clientAddress: request.clientAddress, userAgent: request.headers["user-agent"])
            do {
                let context = RequestContext(requestID: requestID, logger: logger, parameters: match.parameters)
                response = try await RequestOrigin.$current.withValue(origin) {
                    try await match.handler(request, context)
                }
            } catch {
                let rendered = match.route.render(error)
                response = rendered.response
                cause = rendered.cause
            }
        } else {
            response = fallback.render(RequestError.notFound).response
        }
        response.headers.append(("X-Request-Id", requestID))
        cors.addHeaders(to: &response, for: request)
        let elapsed = started.duration(to: .now)
        // Whole hundredths of a millisecond, so the logged number has at most two decimals.
        let hundredths = elapsed.components.seconds * 100_000 + elapsed.components.attoseconds / 10_000_000_000_000
        services.metrics.increment("broker_http_requests_total", labels: ["route": route, "status": String(response.status)])
        var fields: [String: LogValue] = [
            "method": .string(request.method), "route": .string(route), "status": .integer(response.status),
            "durationMs": .double(Double(hundredths) / 100),
        ]
        if !request.clientAddress.isEmpty { fields["clientAddress"] = .string(request.clientAddress) }
        if let agent = request.headers["user-agent"], !agent.isEmpty { fields["userAgent"] = .string(String(agent.prefix(256))) }
        if let cause { fields["cause"] = .string(cause) }
        logger.log(response.status >= 500 ? .error : .info, "request", metadata: fields)
        return response
    }

    /// The client's request id when it is short and plain, else a new one.
    static func requestID(from header: String?) -> String {
        RequestID.from(header: header)
    }
}
