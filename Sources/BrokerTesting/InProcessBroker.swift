public import BrokerCore
import BrokerHTTP
public import BrokerFirebase
import BrokerCrypto
public import BrokerIdentity
public import BrokerModel
public import BrokerStorage
import Foundation

/// The broker's application and the stub providers in one process, without sockets, libcurl, SQLite or Argon2:
/// requests go straight to ``BrokerApp/handle(_:)``, the providers' calls straight to the stubs' handler, and
/// accounts live in a ``MemoryBrokerStore``. For tests of handler logic; ``BrokerHarness`` is the live one.
public final class InProcessBroker: Sendable {
    /// The stub providers' keys and tokens.
    public let stubs: StubProviders
    /// The store (for checking what was stored).
    public let store: MemoryBrokerStore
    /// The services behind the app.
    public let services: BrokerServices
    /// The broker's log lines.
    public let logs: MemoryLogSink
    private let app: BrokerApp
    private let firebaseApp: BrokerApp

    /// The base URL the generated config gives the stubs; calls to it never leave the process.
    public static let stubsBaseURL = "http://stubs.in-process"
    /// The address the in-process Firebase listener pretends to be bound to (its `Host` check accepts it).
    public static let firebaseListener = FirebaseSurface.Listener(host: "127.0.0.1", port: 9099)

    private init(stubs: StubProviders, store: MemoryBrokerStore, services: BrokerServices, logs: MemoryLogSink) {
        self.stubs = stubs
        self.store = store
        self.services = services
        self.logs = logs
        app = BrokerApp(services: services, surfaces: BrokerApp.mainSurfaces(services))
        firebaseApp = BrokerApp(
            services: services, surfaces: [FirebaseSurface(services: services, listener: InProcessBroker.firebaseListener)])
    }

    /// Builds the app on a config pointing at in-process stubs; `configure` edits that config. `lifecycle` replaces
    /// the broker's own ``AccountLifecycle``; `withoutLifecycle` leaves none (webhooks answer 501). `passwords` is
    /// a fast test hasher unless a test brings the broker's own; `phases`, the sign-in's optional phases.
    public static func start(
        kakaoMapping: String = "link", linkByVerifiedEmail: Bool = false, appleNonce: String = "required",
        clock: any Clock = SystemClock(), adminToken: String? = nil, catalog: ProviderCatalog = .builtIn,
        lifecycle: (any ProviderLifecycle)? = nil, withoutLifecycle: Bool = false, serviceAccount: Bool = false,
        cipher: OutboxCipher? = nil, passwords: any PasswordHashing = SaltedDigestPasswordHasher(),
        phases: SignInPhases = SignInPhases(), configure: @Sendable (JSONValue) -> JSONValue = { $0 }
    ) async throws -> InProcessBroker {
        let stubs = try StubProviders()
        stubs.oidcIssuer = stubsBaseURL + "/oidc"
        // A service account whose token endpoint and Firebase admin API are the in-process stubs'.
        let accountFile = try serviceAccount ? Self.writeServiceAccount() : nil
        var document = StubProviders.brokerConfig(
            stubsAt: stubsBaseURL, issuer: "http://127.0.0.1:8080", kakaoMapping: kakaoMapping,
            linkByVerifiedEmail: linkByVerifiedEmail, serviceAccountFile: accountFile, appleNonce: appleNonce)
        if let accountFile, case .object(var members) = document {
            members["firebase"] = [
                "serviceAccountFile": .string(accountFile), "apiBaseUrl": .string(stubsBaseURL + StubFirebase.apiPath),
            ]
            document = .object(members)
        }
        document = configure(document)
        let config = try BrokerConfig(
            parsing: document.serialized(), environment: [:], sections: FirebaseModule.configSections)
        let store = MemoryBrokerStore(
            clock: clock, events: EventRouting.to(config.events, clock: clock))
        let logs = MemoryLogSink()
        let chosen: BrokerServices.Lifecycle =
            if withoutLifecycle { .none } else if let lifecycle { .custom(lifecycle) } else { .broker }
        let httpClient = InProcessStubClient(stubs: stubs)
        let services = try await BrokerServices.make(
            config: config, store: store, httpClient: httpClient,
            passwords: passwords, catalog: catalog, adminToken: adminToken, clock: clock,
            logger: Logger(sink: logs), cipher: cipher, phases: phases, lifecycle: chosen,
            modules: [try FirebaseModule(config: config, httpClient: httpClient, clock: clock)])
        return InProcessBroker(stubs: stubs, store: store, services: services, logs: logs)
    }

    private static func writeServiceAccount() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("in-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try TestServiceAccount.write(into: directory, tokenURI: stubsBaseURL + StubFirebase.tokenPath)
    }

    /// Sends a request to the app.
    public func request(
        _ method: String, _ path: String, json: JSONValue? = nil, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) async -> TestResponse {
        var allHeaders = headers
        if json != nil { allHeaders["Content-Type"] = "application/json" }
        let (bare, query) = InProcessStubClient.split(path)
        let response = await app.handle(
            HTTPRequest(method: method, path: bare, query: query, headers: allHeaders, body: body ?? json?.serialized() ?? []))
        var lowered: [String: String] = [:]
        for (name, value) in response.headers { lowered[name.lowercased()] = value }
        return TestResponse(status: response.status, headers: lowered, body: response.body)
    }

    /// Sends a request to the Firebase-compatible listener's app (contract section 11), with
    /// `Host: 127.0.0.1:9099` unless `headers` name another (case-insensitively).
    public func firebase(
        _ method: String, _ path: String, json: JSONValue? = nil, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) async -> TestResponse {
        var allHeaders = headers
        if json != nil { allHeaders["Content-Type"] = "application/json" }
        if !allHeaders.keys.contains(where: { $0.lowercased() == "host" }) { allHeaders["Host"] = "127.0.0.1:9099" }
        let (bare, query) = InProcessStubClient.split(path)
        let response = await firebaseApp.handle(
            HTTPRequest(method: method, path: bare, query: query, headers: allHeaders, body: body ?? json?.serialized() ?? []))
        var lowered: [String: String] = [:]
        for (name, value) in response.headers { lowered[name.lowercased()] = value }
        return TestResponse(status: response.status, headers: lowered, body: response.body)
    }

    /// `POST path` with a JSON body to the Firebase-compatible listener's app.
    public func firebasePost(_ path: String, _ json: JSONValue, headers: [String: String] = [:]) async -> TestResponse {
        await firebase("POST", path, json: json, headers: headers)
    }

    /// `POST path` with a JSON body.
    public func post(_ path: String, _ json: JSONValue, headers: [String: String] = [:]) async -> TestResponse {
        await request("POST", path, json: json, headers: headers)
    }

    /// `GET path`.
    public func get(_ path: String, headers: [String: String] = [:]) async -> TestResponse {
        await request("GET", path, headers: headers)
    }
}

extension StubProviders {
    /// An ``HTTPClient`` that hands requests for ``InProcessBroker/stubsBaseURL`` to these stubs, in process.
    public func inProcessClient() -> any HTTPClient { InProcessStubClient(stubs: self) }
}

/// An ``HTTPClient`` that hands requests for ``InProcessBroker/stubsBaseURL`` to the stubs' handler.
struct InProcessStubClient: HTTPClient {
    let stubs: StubProviders

    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        guard request.url.hasPrefix(InProcessBroker.stubsBaseURL) else { throw HTTPClientError(.connectionFailed) }
        let (path, query) = Self.split(String(request.url.dropFirst(InProcessBroker.stubsBaseURL.count)))
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name] = value }
        let response = await stubs.handle(
            HTTPRequest(method: request.method, path: path, query: query, headers: headers, body: request.body))
        var answered: [String: String] = [:]
        for (name, value) in response.headers { answered[name.lowercased()] = value }
        return HTTPClientResponse(status: response.status, headers: answered, body: response.body)
    }

    /// A path and its query arguments (unescaped only as far as the stubs and tests need: `+` and `%XX`).
    static func split(_ target: String) -> (String, [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            query[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return (String(target[..<mark]), query)
    }
}

/// A fast salted SHA-256 password hasher for in-process tests only: it keeps the port's contract (fresh salt,
/// false for a malformed hash) without Argon2's cost. Never use it outside tests.
public struct SaltedDigestPasswordHasher: PasswordHashing {
    /// Creates the hasher.
    public init() {}

    /// `test-sha256$<salt>$<digest>`.
    public func hash(_ password: String) async throws -> String {
        let salt = Hex.encode(SecureRandom.bytes(16))
        return "test-sha256$\(salt)$" + Hex.encode(Digest.sha256(salt + password))
    }

    /// Whether `password` matches.
    public func verify(_ password: String, against encoded: String) async throws -> Bool {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "test-sha256" else { return false }
        return constantTimeEquals(Array(Hex.encode(Digest.sha256(String(parts[1]) + password)).utf8), Array(parts[2].utf8))
    }
}
