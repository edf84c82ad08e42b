public import BrokerCore
public import BrokerFirebase
public import BrokerHTTP
public import BrokerModel
public import BrokerTesting
public import Foundation

/// The broker's app over the memory store and the in-process stub providers (as ``InProcessBroker`` builds it),
/// with a clock that stands still and a log that keeps only its last lines, so a long run stays small.
public final class FuzzBroker: Sendable {
    /// The instant the clock stands at: tokens in the corpora are valid then.
    public static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The stub providers (their signing keys sign the fuzzer's claims).
    public let stubs: StubProviders
    /// The services behind the app.
    public let services: BrokerServices
    /// The clock every service reads.
    public let clock: ManualClock
    private let app: BrokerApp
    /// The Firebase-compatible listener's app (contract section 11), as if bound to ``firebaseListener``.
    private let firebaseApp: BrokerApp
    /// The address the Firebase app's `Host` check accepts (`Host: 127.0.0.1:9099`).
    public static let firebaseListener = FirebaseSurface.Listener(host: "127.0.0.1", port: 9099)
    /// `FUZZ_TRACE=1` prints each request's answer (for checking what a corpus reaches).
    static let tracing = ProcessInfo.processInfo.environment["FUZZ_TRACE"] == "1"
    private let logs: RecentLogSink

    /// Builds the app, its outbound calls answered by `httpClient` (the stubs, in process, by default); traps when
    /// it cannot (a harness bug, not a finding).
    public static func make(httpClient: (any HTTPClient)? = nil) -> FuzzBroker {
        runBlocking {
            do {
                let stubs = try StubProviders()
                let config = try BrokerConfig(
                    parsing: StubProviders.brokerConfig(stubsAt: InProcessBroker.stubsBaseURL).serialized(),
                    environment: [:], sections: FirebaseModule.configSections)
                let clock = ManualClock(now)
                let logs = RecentLogSink()
                let client = httpClient ?? stubs.inProcessClient()
                let services = try await BrokerServices.inMemory(
                    config: config, httpClient: client,
                    passwords: SaltedDigestPasswordHasher(), adminToken: "fuzz-admin-token", clock: clock,
                    logger: Logger(sink: logs),
                    modules: [try FirebaseModule(config: config, httpClient: client, clock: clock)])
                return FuzzBroker(stubs: stubs, services: services, clock: clock, logs: logs)
            } catch {
                fuzzFailure("the fuzz harness could not build the broker: \(error)")
            }
        }
    }

    private init(stubs: StubProviders, services: BrokerServices, clock: ManualClock, logs: RecentLogSink) {
        self.stubs = stubs
        self.services = services
        self.clock = clock
        self.logs = logs
        app = BrokerApp(services: services, surfaces: BrokerApp.mainSurfaces(services))
        firebaseApp = BrokerApp(
            services: services, surfaces: [FirebaseSurface(services: services, listener: FuzzBroker.firebaseListener)])
    }

    /// Hands `request` to `BrokerApp.handle` (the Firebase listener's app when `firebase`); a 500 is a finding: it
    /// stops the fuzzer with the last log lines.
    @discardableResult
    public func handle(_ request: HTTPRequest, firebase: Bool = false) async -> HTTPResponse {
        let response = await (firebase ? firebaseApp : app).handle(request)
        if FuzzBroker.tracing {
            let body = String(decoding: response.body.prefix(160), as: UTF8.self)
            FileHandle.standardError.write(Data("\(request.method) \(request.path) -> \(response.status) \(body)\n".utf8))
        }
        if response.status == 500 {
            let lines = logs.lines.joined(separator: "\n")
            fuzzFailure("\(request.method) \(request.path) answered \(response.status)\n\(lines)")
        }
        return response
    }
}

/// Keeps the last 32 log lines.
final class RecentLogSink: LogSink, @unchecked Sendable {
    // Guarded by `lock`.
    private var stored: [String] = []
    private let lock = NSLock()

    func write(_ line: String) {
        lock.withLock {
            if stored.count >= 32 { stored.removeFirst(stored.count - 31) }
            stored.append(line)
        }
    }

    var lines: [String] { lock.withLock { stored } }
}
