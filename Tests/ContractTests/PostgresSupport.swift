import BrokerCore
import BrokerDrivers
import BrokerTesting
import Foundation

/// The PostgreSQL the contract tests run against, from `scripts/with-postgres.sh`.
enum PostgresTestEnvironment {
    /// The shared cluster's database (`BROKER_TEST_POSTGRES_URL`); the tests make a schema of their own in it.
    static var url: String? { variable("BROKER_TEST_POSTGRES_URL") }
    /// The outage tests' own cluster, which they stop and start (`BROKER_TEST_OUTAGE_POSTGRES_URL`).
    static var outageURL: String? { variable("BROKER_TEST_OUTAGE_POSTGRES_URL") }
    /// `pg_ctl` for the outage cluster, with its data directory and user filled in.
    static var outagePGCtl: String? { variable("BROKER_TEST_OUTAGE_PG_CTL") }

    private static func variable(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Runs the outage cluster's `pg_ctl` with `arguments` and returns its exit status.
    ///
    /// Spawned and reaped with `posix_spawn` and `waitpid` on a thread of its own rather than with
    /// Foundation's `Process`: `pg_ctl start` leaves a daemon behind, and `Process` was seen never noticing
    /// that `pg_ctl` itself had exited (a zombie, `isRunning` true forever).
    static func pgCtl(_ arguments: [String]) async throws -> Int32 {
        guard let path = outagePGCtl else { throw Missing(name: "BROKER_TEST_OUTAGE_PG_CTL") }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try spawnAndWait(path, arguments) })
            }
        }
    }

    private static func spawnAndWait(_ path: String, _ arguments: [String]) throws -> Int32 {
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw SpawnFailed(path: path, code: spawned) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnFailed(path: path, code: errno) }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    struct SpawnFailed: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot run \(path): error \(code)" }
    }

    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "\(name) is not set: run under scripts/with-postgres.sh" }
    }
}

/// A schema of its own in a test database, so tests running in parallel never see each other's tables.
struct PostgresContractSchema: Sendable {
    /// `t_<32 hex digits>`.
    let name: String
    /// The database's URL, without the schema.
    let baseURL: String

    /// The URL whose connections use the schema (libpq's `options` sets their `search_path`).
    var url: String { baseURL + (baseURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + name }

    /// Creates a new, empty schema in the database at `baseURL`.
    static func create(in baseURL: String) async throws -> PostgresContractSchema {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await administer(baseURL) { try $0.execute("CREATE SCHEMA \(name)", []) }
        return PostgresContractSchema(name: name, baseURL: baseURL)
    }

    /// Drops the schema and everything in it.
    func drop() async {
        _ = try? await Self.administer(baseURL) { try $0.execute("DROP SCHEMA IF EXISTS \(name) CASCADE", []) }
    }

    /// The number of rows of `table` in the schema.
    func count(_ table: String, where condition: String = "TRUE") async throws -> Int {
        let rows = try await Self.administer(url) {
            try $0.query("SELECT COUNT(*) AS n FROM \(table) WHERE \(condition)", [])
        }
        return Int(rows.first?.integer("n") ?? -1)
    }

    /// Runs `body` in a write transaction on a one-connection database for `url`.
    @discardableResult
    static func administer<T: Sendable>(
        _ url: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws -> T {
        try await PostgresAdministration.run(url, body)
    }
}
