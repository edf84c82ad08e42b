import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// The backends the store conformance suite runs against.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqliteFile
    case sqliteMemory
    /// Runs only when `BROKER_TEST_POSTGRES_URL` is set; see ``StoreFixture/make(_:)``.
    case postgres
    /// The same PostgreSQL through a PgBouncer in `pool_mode = transaction`: runs only when
    /// `BROKER_TEST_PGBOUNCER_URL` is set (`scripts/with-postgres.sh` sets it when pgbouncer is installed).
    case pgbouncer

    /// The backends to test in this run: all but PostgreSQL unless `BROKER_TEST_POSTGRES_URL` is set, and
    /// PgBouncer only with `BROKER_TEST_PGBOUNCER_URL`.
    static var enabled: [StoreBackend] {
        allCases.filter { $0.baseURL != nil || !$0.isPostgres }
    }

    static var postgresURL: String? { variable("BROKER_TEST_POSTGRES_URL") }
    static var pgbouncerURL: String? { variable("BROKER_TEST_PGBOUNCER_URL") }

    /// Whether the backend is PostgreSQL, reached directly or through the pooler.
    var isPostgres: Bool { self == .postgres || self == .pgbouncer }

    /// The database URL of a PostgreSQL backend (without a schema), when its variable is set.
    var baseURL: String? {
        switch self {
        case .postgres: Self.postgresURL
        case .pgbouncer: Self.pgbouncerURL
        default: nil
        }
    }

    private static func variable(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    var testDescription: String { rawValue }
}

/// A fresh, empty store of one backend, with the clock it uses, and what to clean up afterwards.
struct StoreFixture: Sendable {
    let store: any BrokerStore
    let clock: ManualClock
    let database: (any SQLDatabase)?
    let directory: URL?
    /// The PostgreSQL schema made for this fixture, dropped in ``tearDown()``.
    var postgresSchema: PostgresTestSchema? = nil

    static func make(_ backend: StoreBackend) async throws -> StoreFixture {
        let clock = ManualClock()
        switch backend {
        case .memory:
            return StoreFixture(store: MemoryBrokerStore(clock: clock), clock: clock, database: nil, directory: nil)
        case .sqliteMemory:
            let database = try SQLiteDatabase(path: ":memory:")
            let store = try await SQLBrokerStore(database: database, clock: clock)
            return StoreFixture(store: store, clock: clock, database: database, directory: nil)
        case .sqliteFile:
            let directory = try makeTemporaryDirectory()
            let database = try await SQLiteDatabase.open(path: directory.appendingPathComponent("broker.sqlite").path)
            let store = try await SQLBrokerStore(database: database, clock: clock)
            return StoreFixture(store: store, clock: clock, database: database, directory: directory)
        case .postgres, .pgbouncer:
            // A fresh schema per fixture: every transaction gets it as its search_path.
            let schema = try await PostgresTestSchema.create(in: backend.baseURL)
            do {
                let database = try PostgresDatabase(url: schema.url)
                let store = try await SQLBrokerStore(database: database, clock: clock)
                return StoreFixture(
                    store: store, clock: clock, database: database, directory: nil, postgresSchema: schema)
            } catch {
                await schema.drop()
                throw error
            }
        }
    }

    func tearDown() async {
        await database?.close()
        if let directory { try? FileManager.default.removeItem(at: directory) }
        await postgresSchema?.drop()
    }
}

/// Runs `body` against a fresh store of `backend`, and cleans up whether it passes or throws.
func withStore(_ backend: StoreBackend, _ body: (StoreFixture) async throws -> Void) async throws {
    let fixture = try await StoreFixture.make(backend)
    do {
        try await body(fixture)
    } catch {
        await fixture.tearDown()
        throw error
    }
    await fixture.tearDown()
}

/// A new, empty directory under the system's temporary directory.
func makeTemporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("broker-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// The instant `milliseconds` after 1970: fixtures use whole milliseconds, which every backend keeps exactly.
func date(ms milliseconds: Int64) -> Date {
    Date(timeIntervalSince1970: Double(milliseconds) / 1000)
}

/// Expects `body` to throw an ``AccountStoreError`` with `code`.
func expectStoreError(
    _ code: AccountStoreError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    let error = await #expect(throws: AccountStoreError.self, sourceLocation: sourceLocation) {
        try await body()
    }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}

/// Runs `body(0..<count)` concurrently and returns the results in index order.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        for index in 0..<count {
            group.addTask { (index, try await body(index)) }
        }
        var results: [(Int, T)] = []
        for try await result in group { results.append(result) }
        return results.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
