public import BrokerCore
import BrokerHTTP
import BrokerDrivers
import BrokerFirebase
public import BrokerModel
public import BrokerStorage
public import Foundation

/// A response as a test (or the demo) reads it.
public struct TestResponse: Sendable {
    /// The status.
    public var status: Int
    /// Headers, names lower-cased.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]
    /// The body as JSON, if it is.
    public var json: JSONValue? { JSONValue.parse(body) }
    /// `error.code` of an error body.
    public var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

/// The broker and the stub providers running on loopback ports over real HTTP, on a SQLite database in a
/// temporary directory: what the contract tests and `broker demo` talk to, the way an app would.
public final class BrokerHarness: @unchecked Sendable {
    /// The stub providers.
    public let stubs: StubProviders
    /// The broker's store (for checking what was stored).
    public let store: SQLBrokerStore
    /// The broker's services.
    public let services: BrokerServices
    /// `http://127.0.0.1:<port>` of the broker.
    public let baseURL: String
    /// The broker's log lines.
    public let logs: MemoryLogSink
    /// The temporary directory holding the database.
    public let directory: URL
    /// `http://127.0.0.1:<port>` of the Firebase-compatible listener, when started with `firebase: true`.
    public let firebaseURL: String?
    private let firebaseServer: MicroHTTPDServer?
    private let client: CurlHTTPClient
    private let providerClient: CurlHTTPClient
    private let stubServer: MicroHTTPDServer
    private let brokerServer: MicroHTTPDServer
    private let database: SQLiteDatabase

    private init(
        stubs: StubProviders, store: SQLBrokerStore, services: BrokerServices, baseURL: String, logs: MemoryLogSink,
        directory: URL, client: CurlHTTPClient, providerClient: CurlHTTPClient, stubServer: MicroHTTPDServer,
        brokerServer: MicroHTTPDServer, database: SQLiteDatabase, firebaseURL: String?,
        firebaseServer: MicroHTTPDServer?
    ) {
        self.firebaseURL = firebaseURL
        self.firebaseServer = firebaseServer
        self.stubs = stubs
        self.store = store
        self.services = services
        self.baseURL = baseURL
        self.logs = logs
        self.directory = directory
        self.client = client
        self.providerClient = providerClient
        self.stubServer = stubServer
        self.brokerServer = brokerServer
        self.database = database
    }

    /// Starts stubs and broker. `configure` edits the generated config; `serviceAccount` adds a Firebase
    /// service account so sessions carry custom tokens; `cipher` is the encryption key (`BROKER_ENCRYPTION_KEY`). `firebase` also starts the Firebase-compatible listener
    /// on its own loopback port (``firebaseURL``), serving only the Firebase surface.
    public static func start(
        serviceAccount: Bool = false, firebase: Bool = false, kakaoMapping: String = "link",
        linkByVerifiedEmail: Bool = false,
        appleNonce: String = "required", clock: any Clock = SystemClock(), adminToken: String? = nil,
        cipher: OutboxCipher? = nil, configure: @Sendable (JSONValue) -> JSONValue = { $0 }
    ) async throws -> BrokerHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "broker-harness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stubs = try StubProviders()
        let stubServer = MicroHTTPDServer(limits: .permissive)
        try stubs.start(server: stubServer)

        let brokerServer = MicroHTTPDServer()
        let box = AppBox()
        let port = try brokerServer.start(
            host: "127.0.0.1", port: 0, maxBodyBytes: 64 * 1024, refusals: { box.app?.render($0) }
        ) { request in
            guard let app = box.app else { return APIError(503, "STARTING", "Starting.").response }
            return await app.handle(request)
        }
        let baseURL = "http://127.0.0.1:\(port)"
        let accountFile = serviceAccount ? try TestServiceAccount.write(into: directory) : nil
        let document = configure(
            stubs.brokerConfig(
                issuer: baseURL, kakaoMapping: kakaoMapping, linkByVerifiedEmail: linkByVerifiedEmail,
                serviceAccountFile: accountFile, appleNonce: appleNonce))
        let config = try BrokerConfig(
            parsing: document.serialized(), environment: [:], sections: FirebaseModule.configSections)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("broker.sqlite").path)
        let store = try await SQLBrokerStore(
            database: database, clock: clock,
            events: EventRouting.to(config.events, clock: clock))
        let logs = MemoryLogSink()
        let providerClient = try CurlHTTPClient()
        let services = try await BrokerServices.make(
            config: config, store: store, httpClient: providerClient, passwords: MigratingPasswordHasher(),
            adminToken: adminToken, clock: clock, logger: Logger(sink: logs), cipher: cipher,
            modules: [try FirebaseModule(config: config, httpClient: providerClient, clock: clock)])
        box.app = BrokerApp(services: services, surfaces: BrokerApp.mainSurfaces(services))
        var firebaseURL: String?
        var firebaseServer: MicroHTTPDServer?
        if firebase {
            let server = MicroHTTPDServer()
            let firebaseBox = AppBox()
            let firebasePort = try server.start(
                host: "127.0.0.1", port: 0, maxBodyBytes: FirebaseSurface.maxBodyBytes,
                refusals: { firebaseBox.app?.render($0) }
            ) { request in
                guard let app = firebaseBox.app else { return APIError(503, "STARTING", "Starting.").response }
                return await app.handle(request)
            }
            firebaseBox.app = BrokerApp(
                services: services,
                surfaces: [
                    FirebaseSurface(
                        services: services, listener: FirebaseSurface.Listener(host: "127.0.0.1", port: firebasePort))
                ])
            firebaseURL = "http://127.0.0.1:\(firebasePort)"
            firebaseServer = server
        }
        return BrokerHarness(
            stubs: stubs, store: store, services: services, baseURL: baseURL, logs: logs, directory: directory,
            client: try CurlHTTPClient(), providerClient: providerClient, stubServer: stubServer,
            brokerServer: brokerServer, database: database, firebaseURL: firebaseURL, firebaseServer: firebaseServer)
    }

    /// Runs `body` against this harness and stops it afterwards, whether `body` returned or threw.
    public func stopping<T>(after body: (BrokerHarness) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    /// Stops everything and removes the temporary directory.
    public func stop() async {
        await brokerServer.shutdown()
        await firebaseServer?.shutdown()
        await stubs.stop()
        await client.shutdown()
        await providerClient.shutdown()
        await database.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends a request to the broker.
    public func request(
        _ method: String, _ path: String, json: JSONValue? = nil, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) async throws -> TestResponse {
        var allHeaders = headers.map { (name: $0.key, value: $0.value) }
        let bytes = body ?? json?.serialized() ?? []
        if json != nil { allHeaders.append(("Content-Type", "application/json")) }
        let response = try await client.send(
            HTTPClientRequest(method: method, url: baseURL + path, headers: allHeaders, body: bytes, timeout: 30))
        return TestResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// Sends a request to the Firebase-compatible listener (start the harness with `firebase: true`).
    public func firebase(
        _ method: String, _ path: String, json: JSONValue? = nil, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) async throws -> TestResponse {
        guard let firebaseURL else { throw HTTPClientError(.connectionFailed) }
        var allHeaders = headers.map { (name: $0.key, value: $0.value) }
        let bytes = body ?? json?.serialized() ?? []
        if json != nil { allHeaders.append(("Content-Type", "application/json")) }
        let response = try await client.send(
            HTTPClientRequest(method: method, url: firebaseURL + path, headers: allHeaders, body: bytes, timeout: 30))
        return TestResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// `POST path` with a JSON body.
    public func post(_ path: String, _ json: JSONValue, headers: [String: String] = [:]) async throws -> TestResponse {
        try await request("POST", path, json: json, headers: headers)
    }

    /// The number of rows in one of the broker's tables; for "nothing was stored" checks.
    public func count(_ table: String) async throws -> Int {
        let rows = try await database.read { try $0.query("SELECT COUNT(*) AS n FROM \(table)", []) }
        return Int(rows.first?.integer("n") ?? -1)
    }

    /// `GET path`.
    public func get(_ path: String, headers: [String: String] = [:]) async throws -> TestResponse {
        try await request("GET", path, headers: headers)
    }
}

/// Holds the app once it is built (the server must be listening first so the issuer can name its port).
private final class AppBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: BrokerApp?
    var app: BrokerApp? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
