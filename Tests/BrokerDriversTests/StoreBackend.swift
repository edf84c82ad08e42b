import BrokerCore
import BrokerDrivers
import Foundation
import Testing

/// The backends the store conformance suite runs against.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqliteFile
    case sqliteMemory
    /// Runs only when `BROKER_TEST_POSTGRES_URL` is set; see ``StoreFixture/make(_:)``.
    case postgres

    /// The backends to test in this run: all but PostgreSQL unless `BROKER_TEST_POSTGRES_URL` is set.
    static var enabled: [StoreBackend] {
        allCases.filter { $0 != .postgres || postgresURL != nil }
    }

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["BROKER_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var testDescription: String { rawValue }
}

/// A fresh, empty store of one backend, with the clock it uses, and what to clean up afterwards.
struct StoreFixture: Sendable {
    let store: any BrokerStore
    let clock: ManualClock
    let database: (any SQLDatabase)?
    let directory: URL?

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
        case .postgres:
            // Hook for the PostgreSQL driver: open `StoreBackend.postgresURL` in a fresh schema (for example
            // `CREATE SCHEMA t_<uuid>` plus `search_path`), wrap it in `SQLBrokerStore(database:clock:)`, and
            // drop the schema in `tearDown`.
            throw PostgresDriverMissing()
        }
    }

    func tearDown() async {
        await database?.close()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}

/// Thrown when `BROKER_TEST_POSTGRES_URL` asks for a driver that has not been written yet.
struct PostgresDriverMissing: Error, CustomStringConvertible {
    var description: String {
        "BROKER_TEST_POSTGRES_URL is set, but there is no PostgreSQL SQLDatabase driver yet (StoreFixture.make)"
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
