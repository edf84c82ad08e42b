import BrokerCore
import BrokerHTTP
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A failover as production runs one (contract section 17): a primary with a synchronous streaming standby
/// (`pg_basebackup -R`), the broker on a multi-host URL with `target_session_attrs=read-write`, and under a load
/// of sign-ups the primary stops (cleanly, or frozen with SIGSTOP as a host gone from the network) and the
/// standby is promoted. Requests in between get 503 `STORAGE_UNAVAILABLE` with `Retry-After`, each answered
/// within 10 s; the broker signs up again within 10 s of the promotion; every acknowledged sign-up is on the
/// promoted server. Each run makes its own pair (`BROKER_TEST_FAILOVER_PAIR`, from `scripts/with-postgres.sh`).
@Suite(
    "PostgreSQL: failover to a synchronous standby", .serialized,
    .enabled(
        if: PostgresTestEnvironment.failoverPair != nil && PostgresTestEnvironment.failoverDirectory != nil,
        "BROKER_TEST_FAILOVER_PAIR and BROKER_TEST_FAILOVER_DIR are not set (scripts/with-postgres.sh sets them)"))
struct PostgresFailoverTests {
    enum Failure: String, CaseIterable, Sendable {
        /// `pg_ctl stop -m fast`: the server closes its connections.
        case stopped
        /// SIGSTOP on every process of the primary: connections stay open and nothing answers.
        case frozen
    }

    /// One sign-up's outcome.
    struct Outcome: Sendable {
        var email: String
        var status: Int
        var errorCode: String?
        var retryAfter: String?
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant
    }

    /// What the load produced so far, and whether it should stop.
    final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        private var outcomes: [Outcome] = []
        private var stopping = false

        func record(_ outcome: Outcome) { lock.withLock { outcomes.append(outcome) } }
        var all: [Outcome] { lock.withLock { outcomes } }
        var acknowledged: Int { lock.withLock { outcomes.filter { $0.status == 201 }.count } }
        func stop() { lock.withLock { stopping = true } }
        var isStopping: Bool { lock.withLock { stopping } }
        /// The first acknowledged sign-up that started at or after `instant`.
        func firstAcknowledged(startedAfter instant: ContinuousClock.Instant) -> Outcome? {
            lock.withLock { outcomes.filter { $0.status == 201 && $0.started >= instant }.min { $0.ended < $1.ended } }
        }
    }

    @Test(arguments: Failure.allCases)
    func signUpsFailOverToThePromotedStandbyWithoutLosingAnAcknowledgedOne(failure: Failure) async throws {
        let script = try #require(PostgresTestEnvironment.failoverPair)
        let parent = try #require(PostgresTestEnvironment.failoverDirectory)
        let workdir = parent + "/pair-\(failure.rawValue)-\(UUID().uuidString.prefix(8))"
        let made = try ChildProcess(script, [workdir], environment: ProcessInfo.processInfo.environment, output: .discard)
        let madeStatus = try await made.wait(seconds: 120)
        let why = (try? String(contentsOfFile: workdir + "/make.log", encoding: .utf8)) ?? "no make.log"
        try #require(madeStatus == 0, "the pair was not made: \(why)")
        let ports = try String(contentsOfFile: workdir + "/ports", encoding: .utf8)
        let fields = Dictionary(
            uniqueKeysWithValues: ports.split(whereSeparator: \.isWhitespace).map { field in
                let pair = field.split(separator: "=", maxSplits: 1)
                return (String(pair[0]), String(pair.count > 1 ? pair[1] : ""))
            })
        let primary = try #require(fields["primary"])
        let standby = try #require(fields["standby"])

        let directory = try ProcessTests.temporaryDirectory()
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9").serialized())
            .write(to: URL(fileURLWithPath: configPath))
        let url = "postgres://postgres@127.0.0.1:\(primary),127.0.0.1:\(standby)/broker_test?target_session_attrs=read-write"
        var broker: BrokerProcess?
        var frozen = false
        func cleanUp() async {
            if let broker { _ = try? await broker.stop() }
            if frozen { try? PostgresTestEnvironment.signalServer(dataDirectory: workdir + "/primary", SIGCONT) }
            if let stop = try? ChildProcess(workdir + "/stop", [], environment: [:], output: .discard) {
                _ = try? await stop.wait(seconds: 60)
            }
            try? FileManager.default.removeItem(at: directory)
        }
        do {
            // A URL without target_session_attrs that reaches the read-only standby: unavailable (503 at the
            // edge), never the 500 of "cannot use serializable mode in a hot standby".
            let mistaken = try PostgresDatabase(url: "postgres://postgres@127.0.0.1:\(standby)/broker_test", poolSize: 1)
            for write in [true, false] {
                let error = await #expect(throws: SQLError.self) {
                    if write {
                        _ = try await mistaken.write { try $0.query("SELECT 1 AS one", []) }
                    } else {
                        _ = try await mistaken.read { try $0.query("SELECT 1 AS one", []) }
                    }
                }
                #expect(error?.code == .unavailable, "\(String(describing: error))")
            }
            await mistaken.close()

            let instance = try await BrokerProcess.start(
                environment: ["BROKER_CONFIG": configPath, "BROKER_DATABASE": url, "BROKER_DATABASE_POOL_SIZE": "3"])
            broker = instance
            let ledger = Ledger()
            let run = failure.rawValue
            // The load: four clients signing up new addresses one after another, bounded.
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for client in 0..<4 {
                        group.addTask {
                            for index in 0..<2_000 where !ledger.isStopping {
                                let email = "\(run)-\(client)-\(index)@example.com"
                                let started = ContinuousClock.now
                                guard let response = try? await instance.post(
                                    "/v1/signup", ["email": .string(email), "password": "failover-password"])
                                else {
                                    // No answer at all (the client's 30 s timeout): recorded as such.
                                    ledger.record(
                                        Outcome(email: email, status: 0, started: started, ended: ContinuousClock.now))
                                    continue
                                }
                                ledger.record(
                                    Outcome(
                                        email: email, status: response.status, errorCode: response.errorCode,
                                        retryAfter: response.headers["retry-after"], started: started,
                                        ended: ContinuousClock.now))
                                if response.status != 201 { try? await Task.sleep(for: .milliseconds(50)) }
                            }
                        }
                    }
                }
            }
            // Some sign-ups acknowledged before the failure (bounded: 60 s).
            for _ in 0..<600 where ledger.acknowledged < 8 { try await Task.sleep(for: .milliseconds(100)) }
            #expect(ledger.acknowledged >= 8)

            switch failure {
            case .stopped:
                let stop = try ChildProcess(workdir + "/pg_ctl-primary", ["stop", "-m", "fast", "-w"], environment: [:], output: .discard)
                #expect(try await stop.wait(seconds: 60) == 0)
            case .frozen:
                try PostgresTestEnvironment.signalServer(dataDirectory: workdir + "/primary", SIGSTOP)
                frozen = true
            }
            // Some requests meet the failed primary before the promotion.
            try await Task.sleep(for: .seconds(1))
            let promote = try ChildProcess(workdir + "/pg_ctl-standby", ["promote", "-w", "-t", "60"], environment: [:], output: .discard)
            #expect(try await promote.wait(seconds: 90) == 0)
            let promoted = ContinuousClock.now

            // Serving again: a sign-up started after the promotion is acknowledged (bounded: 30 s).
            for _ in 0..<300 where ledger.firstAcknowledged(startedAfter: promoted) == nil {
                try await Task.sleep(for: .milliseconds(100))
            }
            ledger.stop()
            await load.value

            let outcomes = ledger.all
            let served = try #require(ledger.firstAcknowledged(startedAfter: promoted), "never served after the promotion")
            // The contract's bound: serving again within 10 s of the promotion.
            #expect(promoted.duration(to: served.ended) < .seconds(10), "\(promoted.duration(to: served.ended))")
            for outcome in outcomes where outcome.status != 201 {
                #expect(outcome.status == 503, "\(outcome.email): \(outcome.status) \(outcome.errorCode ?? "")")
                #expect(outcome.errorCode == "STORAGE_UNAVAILABLE", "\(outcome.email)")
                #expect(outcome.retryAfter == String(APIError.retryAfterSeconds), "\(outcome.email)")
            }
            // Every answer within 10 s, never a hang.
            let slowest = outcomes.map { $0.started.duration(to: $0.ended) }.max() ?? .zero
            #expect(slowest < .seconds(10), "slowest answer: \(slowest)")
            #expect(outcomes.contains { $0.status == 503 }, "the failure was seen")

            // Every acknowledged sign-up is on the promoted server.
            let acknowledged = outcomes.filter { $0.status == 201 }.map(\.email)
            let stored = try await PostgresAdministration.run("postgres://postgres@127.0.0.1:\(standby)/broker_test") {
                connection in
                Set(try connection.query("SELECT email FROM accounts", []).compactMap { $0.text("email") })
            }
            let lost = acknowledged.filter { !stored.contains($0) }
            #expect(lost.isEmpty, "acknowledged but lost: \(lost)")
            #expect(instance.child.isRunning)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}
