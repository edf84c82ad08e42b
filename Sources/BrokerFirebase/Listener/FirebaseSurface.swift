public import BrokerCore
public import BrokerHTTP
public import BrokerIdentity
public import BrokerModel
/// Firebase Auth's wire protocol on its own listener (contract section 11): the paths of Firebase's Auth emulator,
/// so Firebase's SDKs work against the broker unchanged. It only translates: sign-ins go through the one
/// ``SignInFlow`` with ``SessionSurface/firebase`` sessions, and the account and admin calls through the same
/// services as the native API.
///
/// Its routes come in parts, each mounted from its own file: the client API (`mountClient`, in
/// `FirebaseSurface+Client.swift`), the project's configuration the SDKs read (`mountConfig`,
/// `FirebaseSurface+Config.swift`), the Admin SDK's project calls (`mountAdmin`, `FirebaseSurface+Admin.swift`)
/// and the out-of-band flows (`mountOOB`, `FirebaseSurface+OOB.swift`). Each adds its routes to a
/// ``FirebaseRouteTable``, which wraps every handler in the listener's checks: the `Host` check, the `Origin`
/// check, the body's media type, the API key or `Bearer owner`, and `projects/{project}` being the broker's project.
public struct FirebaseSurface: Surface {
    /// The largest request body the listener reads (larger is 413): room for a `batchCreate` of Firebase's 1000
    /// users with their hashes, salts and provider data (the main listener keeps 64 KiB).
    public static let maxBodyBytes = 2 * 1024 * 1024

    /// The address the listener serves, for the `Host` check.
    public struct Listener: Sendable, Equatable {
        /// The bound host (`127.0.0.1`, or a remote address with `allowRemote`).
        public var host: String
        /// The bound port; nil when any port is accepted with `host` (a listener started on port 0 before the
        /// surface knew its port).
        public var port: Int?

        /// Creates a listener description.
        public init(host: String, port: Int?) {
            self.host = host
            self.port = port
        }
    }

    /// What the listener uses: the same use cases as the native API, never the store.
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
        /// The broker's signing keys.
        public var keys: KeyRing
        /// The accounts.
        public var accounts: AccountService
        /// Administration, for the Admin SDK's calls.
        public var admin: AdminService
        /// Action codes without mail.
        public var actionCodes: ActionCodeService
        /// The email flows; nil without a `mail` section.
        public var emailActions: EmailActionService?
        /// Second factors; nil when `mfa.totp` is off.
        public var secondFactors: SecondFactorService?
        /// The OpenID Connect providers managed at run time (`oauthIdpConfigs`).
        public var providerConfigs: ProviderConfigService
        /// The clock.
        public var clock: any Clock
        /// Verifies the Firebase-shaped ID tokens that calls such as `accounts:lookup` carry.
        public var idTokens: FirebaseIDTokenVerifier
        /// Verifies the custom tokens `signInWithCustomToken` takes.
        public var customTokens: FirebaseCustomTokenVerifier

        /// What `services` holds for this surface.
        public init(_ services: BrokerServices) {
            config = services.config
            providers = services.providers
            signIn = services.signIn
            selfService = services.selfService
            sessions = services.sessions
            keys = services.keys
            accounts = services.accounts
            admin = services.admin
            actionCodes = services.actionCodes
            emailActions = services.emailActions
            secondFactors = services.secondFactors
            providerConfigs = services.providerConfigs
            clock = services.clock
            idTokens = FirebaseIDTokenVerifier(services: services)
            customTokens = FirebaseCustomTokenVerifier(services: services)
        }
    }

    /// The services behind the routes.
    public let services: Dependencies
    /// The listener this surface is mounted on.
    public let listener: Listener
    /// Verifies the Firebase-shaped ID tokens that calls such as `accounts:lookup` carry.
    public var idTokens: FirebaseIDTokenVerifier { services.idTokens }

    /// Creates the surface over `services` for the listener at `listener`.
    public init(services: BrokerServices, listener: Listener) {
        self.init(dependencies: Dependencies(services), listener: listener)
    }

    /// Creates the surface over its dependencies for the listener at `listener`.
    public init(dependencies: Dependencies, listener: Listener) {
        services = dependencies
        self.listener = listener
    }

    /// The broker's project (`projectId`): `aud` of the ID tokens, and the only `projects/{project}` served.
    public var projectID: String { services.config.projectID }
    /// The `firebaseCompat` settings.
    public var settings: FirebaseCompatSettings { services.config.firebaseCompat }

    /// The listener's own cross-origin rules (``FirebaseOriginPolicy``): loopback origins and
    /// `firebaseCompat.allowedOrigins`, never `cors.allowedOrigins`.
    public var crossOrigin: (any CrossOriginPolicy)? { FirebaseOriginPolicy(surface: self) }

    /// Mounts the parts' routes, each wrapped in the listener's checks.
    public func mount(on router: inout Router) {
        var routes = FirebaseRouteTable()
        mountClient(on: &routes)
        mountConfig(on: &routes)
        mountAdmin(on: &routes)
        mountOOB(on: &routes)
        mountMFA(on: &routes)
        mountRevokeToken(on: &routes)
        mountRefused(on: &routes)
        routes.register(on: &router, surface: self)
    }

    /// Firebase's error body; anything unmapped is a 500 whose cause is only logged.
    public func render(_ error: any Error) -> RenderedError {
        if let mapped = FirebaseError.mapping(error) {
            // A refused sign-in or a bad token says why only in the log (never the token itself).
            return RenderedError(response: mapped.response, cause: mapped.status >= 500 ? "\(error)" : nil)
        }
        return RenderedError(response: FirebaseError.internalError.response, cause: "\(error)")
    }
}
