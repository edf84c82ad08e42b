import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation

/// The composition over an in-memory SQLite store that a ``WatchedSQLDatabase`` watches, made from the stub
/// providers' config (its members changed by `configure`), for tests that fail a commit or count writes.
struct WatchedServices {
    let services: BrokerServices
    let store: SQLBrokerStore
    let database: WatchedSQLDatabase
    let clock: ManualClock

    static func make(
        stubsAt base: String = "http://127.0.0.1:9", httpClient: (any HTTPClient)? = nil, cipher: OutboxCipher? = nil,
        configure: (inout [String: JSONValue]) -> Void = { _ in }
    ) async throws -> WatchedServices {
        let clock = ManualClock(Date())
        let database = WatchedSQLDatabase(try SQLiteDatabase(path: ":memory:"))
        let store = try await SQLBrokerStore(database: database, clock: clock)
        guard case .object(var members) = StubProviders.brokerConfig(stubsAt: base) else {
            throw SQLError(.other, "no config")
        }
        configure(&members)
        let config = try BrokerConfig(
            parsing: JSONValue.object(members).serialized(), environment: [:], sections: FirebaseModule.configSections)
        let services = try await BrokerServices.make(
            config: config, store: store,
            httpClient: httpClient ?? ScriptedHTTPClient { _ in throw SQLError(.other, "no network") },
            passwords: SaltedDigestPasswordHasher(), clock: clock, logger: Logger(sink: MemoryLogSink()),
            cipher: cipher,
            prefetch: false)
        return WatchedServices(services: services, store: store, database: database, clock: clock)
    }
}
