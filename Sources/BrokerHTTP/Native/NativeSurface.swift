public import BrokerCore
public import BrokerIdentity
import BrokerModel
/// The apps' API under `/v1` (contract sections 2 to 4): sign-in, sessions, passwords, the signed-in user.
public struct NativeSurface: Surface {
    /// What the apps' API uses: the use cases it translates to, never the store.
    public struct Dependencies: Sendable {
        /// The parsed configuration.
        public var config: BrokerConfig
        /// The enabled providers.
        public var providers: ProviderRegistry
        /// The sign-in use case.
        public var signIn: SignInFlow
        /// What signed-in users do to their own accounts.
        public var selfService: AccountSelfService
        /// Tokens and sessions.
        public var sessions: SessionService
        /// The accounts, for a session's own account.
        public var accounts: AccountService
        /// The email flows; nil without a `mail` section.
        public var emailActions: EmailActionService?
        /// Second factors; nil when `mfa.totp` is off.
        public var secondFactors: SecondFactorService?
        /// Passkeys; nil when `passkeys.enabled` is false.
        public var passkeys: PasskeyService?
        /// Where providers' webhooks report account events; nil: their routes answer 501.
        public var lifecycle: (any ProviderLifecycle)?
        /// The per-address throttle webhook routes share with the admin API.
        public var adminGate: AdminGate
        /// Records audit events outside a store transaction.
        public var auditor: Auditor

        /// What `services` holds for this surface.
        public init(_ services: BrokerServices) {
            config = services.config
            providers = services.providers
            signIn = services.signIn
            selfService = services.selfService
            sessions = services.sessions
            accounts = services.accounts
            emailActions = services.emailActions
            secondFactors = services.secondFactors
            passkeys = services.passkeys
            lifecycle = services.lifecycle
            adminGate = services.adminGate
            auditor = services.auditor
        }
    }

    let services: Dependencies

    /// Creates the surface over `services`.
    public init(services: BrokerServices) { self.init(dependencies: Dependencies(services)) }

    /// Creates the surface over its dependencies.
    public init(dependencies: Dependencies) { services = dependencies }

    /// Adds the `/v1` routes.
    public func mount(on router: inout Router) {
        mountSignIn(&router)
        mountSessions(&router)
        mountPasswords(&router)
        mountMe(&router)
        mountSecondFactors(&router)
        mountPasskeys(&router)
        mountEmail(&router)
        mountWebhooks(&router)
    }

    /// Mounts every enabled provider's webhook routes under `/v1/webhooks/{id}`, each reporting to the broker's
    /// lifecycle handler (none configured: the route answers 501). A call refused with ``WebhookError`` counts
    /// toward the admin API's per-address throttle, and an address locked out there gets 429 here too.
    func mountWebhooks(_ router: inout Router) {
        let lifecycle = services.lifecycle
        let services = services
        for id in services.providers.enabled {
            guard let provider = services.providers.provider(id) as? any WebhookProviding else { continue }
            for route in provider.webhookRoutes {
                router.add(route.method, "/v1/webhooks/\(id.rawValue)" + route.path) { request, context in
                    guard let lifecycle else {
                        throw APIError(501, "NOT_IMPLEMENTED", "Provider notifications are not handled by this broker.")
                    }
                    // Failed calls share the admin API's per-address throttle: guessing a key is slowed alike.
                    try await services.adminGate.checkNotLockedOut(request)
                    do {
                        return try await route.handler(request, context, lifecycle)
                    } catch let error as WebhookError {
                        await services.adminGate.countFailure(of: request)
                        throw error
                    }
                }
            }
        }
    }

    /// The contract's error body; the cause of a 5xx or a refused token is logged.
    public func render(_ error: any Error) -> RenderedError {
        NativeSurface.render(error)
    }

    /// The native rendering of `error`, shared with the surfaces that answer in the same dialect (admin,
    /// operations).
    static func render(_ error: any Error) -> RenderedError {
        guard let mapped = APIError.mapping(error) else {
            return RenderedError(response: APIError.internalError.response, cause: "\(error)")
        }
        let logged = mapped.status >= 500 || error is TokenError || error is ProviderError || error is WebhookError
        return RenderedError(response: mapped.response, cause: logged ? "\(error)" : nil)
    }
}
