import BrokerCore
import BrokerDrivers
import BrokerStorage
import BrokerTesting
import Foundation

/// The PostgreSQL the contract tests run against, from `scripts/with-postgres.sh`.
enum PostgresTestEnvironment {
    /// The shared cluster's database (`BROKER_TEST_POSTGRES_URL`); the tests make a schema of their own in it.
    static var url: String? { variable("BROKER_TEST_POSTGRES_URL") }
    /// The outage tests' own cluster, which they stop and start (`BROKER_TEST_OUTAGE_POSTGRES_URL`).
    static var outageURL: String? { variable("BROKER_TEST_OUTAGE_POSTGRES_URL") }
    /// The shared cluster's database through a PgBouncer in `pool_mode = transaction` (`BROKER_TEST_PGBOUNCER_URL`).
    static var pgbouncerURL: String? { variable("BROKER_TEST_PGBOUNCER_URL") }
    /// `pg_ctl` for the outage cluster, with its data directory and user filled in.
    static var outagePGCtl: String? { variable("BROKER_TEST_OUTAGE_PG_CTL") }

    private static func variable(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Runs the outage cluster's `pg_ctl` with `arguments` and returns its exit status. Its output goes to
    /// `/dev/null`: `pg_ctl start` leaves the server behind holding whatever it was given.
    static func pgCtl(_ arguments: [String]) async throws -> Int32 {
        guard let path = outagePGCtl else { throw Missing(name: "BROKER_TEST_OUTAGE_PG_CTL") }
        let child = try ChildProcess(path, arguments, environment: ProcessInfo.processInfo.environment, output: .discard)
        return try await child.wait(seconds: 120)
    }

    /// scripts/postgres-failover-pair.sh (`BROKER_TEST_FAILOVER_PAIR`), and the directory its pairs go in.
    static var failoverPair: String? { variable("BROKER_TEST_FAILOVER_PAIR") }
    static var failoverDirectory: String? { variable("BROKER_TEST_FAILOVER_DIR") }
    /// The outage cluster's data directory (`BROKER_TEST_OUTAGE_POSTGRES_DATADIR`).
    static var outageDataDirectory: String? { variable("BROKER_TEST_OUTAGE_POSTGRES_DATADIR") }

    /// The outage cluster's postmaster and its children.
    static func outageServerProcesses() throws -> [pid_t] {
        guard let directory = outageDataDirectory else { throw Missing(name: "BROKER_TEST_OUTAGE_POSTGRES_DATADIR") }
        return try serverProcesses(dataDirectory: directory)
    }

    /// The postmaster of the cluster in `directory` (first line of `postmaster.pid`) and its children, read
    /// from `/proc`.
    static func serverProcesses(dataDirectory directory: String) throws -> [pid_t] {
        let pidFile = try String(contentsOfFile: directory + "/postmaster.pid", encoding: .utf8)
        guard let line = pidFile.split(separator: "\n").first, let postmaster = pid_t(line) else {
            throw Missing(name: "a postmaster.pid in \(directory)")
        }
        var processes = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // pid (comm) state ppid ...: the fields after the command name, which may hold spaces.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { processes.append(pid) }
        }
        return processes
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) every process of the outage cluster: a server that stops answering
    /// without closing its connections, as a host that vanished from the network.
    static func signalOutageServer(_ signal: Int32) throws {
        for pid in try outageServerProcesses() { kill(pid, signal) }
    }

    /// The same for the cluster in `directory`.
    static func signalServer(dataDirectory directory: String, _ signal: Int32) throws {
        for pid in try serverProcesses(dataDirectory: directory) { kill(pid, signal) }
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

    /// The URL whose transactions use the schema (the broker's `searchPath` sets their `search_path` with
    /// `SET LOCAL`, so it works through a transaction-pooling PgBouncer too).
    var url: String { baseURL + (baseURL.contains("?") ? "&" : "?") + "searchPath=" + name }

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
