import BrokerCore
import BrokerHTTP
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Losing PostgreSQL and getting it back, with the broker running throughout: requests that need the database
/// get 503 `STORAGE_UNAVAILABLE` with `Retry-After` and store nothing, `/healthz` and the published keys keep
/// answering, `/readyz` says not ready; once the server is back the broker reconnects by itself.
/// Runs on a cluster of its own (`BROKER_TEST_OUTAGE_*` from `scripts/with-postgres.sh`), which it stops.
@Suite(
    "PostgreSQL: outage", .serialized,
    .enabled(
        if: PostgresTestEnvironment.outageURL != nil && PostgresTestEnvironment.outagePGCtl != nil,
        "BROKER_TEST_OUTAGE_POSTGRES_URL and BROKER_TEST_OUTAGE_PG_CTL are not set (scripts/with-postgres.sh sets them)"))
struct PostgresOutageTests {
    /// A broker process (a pool of two connections) on a new schema of the outage cluster, with stub providers.
    static func startBroker() async throws -> (PostgresContractSchema, URL, StubProviders, BrokerProcess) {
        let base = try #require(PostgresTestEnvironment.outageURL)
        let schema = try await PostgresContractSchema.create(in: base)
        let directory = try ProcessTests.temporaryDirectory()
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(stubs.brokerConfig().serialized()).write(to: URL(fileURLWithPath: configPath))
        let broker = try await BrokerProcess.start(
            environment: ["BROKER_CONFIG": configPath, "BROKER_DATABASE": schema.url, "BROKER_DATABASE_POOL_SIZE": "2"])
        return (schema, directory, stubs, broker)
    }

    /// A Google sign-in of `subject` at `broker`.
    static func signIn(_ subject: String, _ broker: BrokerProcess, _ stubs: StubProviders) async throws -> InstanceResponse {
        try await broker.post(
            "/v1/signin/google", ["idToken": .string(try stubs.idToken("google", claims: ["sub": .string(subject)]))])
    }

    /// Whether `broker`'s `/readyz` answers 200 within 10 s (asked every 100 ms).
    static func becomesReady(_ broker: BrokerProcess) async throws -> Bool {
        for _ in 0..<100 {
            if try await broker.get("/readyz").status == 200 { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Stops the stubs, drops the schema and removes the folder.
    static func tearDown(_ schema: PostgresContractSchema, _ directory: URL, _ stubs: StubProviders) async {
        await stubs.stop()
        await schema.drop()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func theBrokerAnswers503WhileTheDatabaseIsDownAndRecoversByItself() async throws {
        let (schema, directory, stubs, broker) = try await Self.startBroker()
        var stopped = false
        do {
            func signIn(_ subject: String) async throws -> InstanceResponse {
                try await Self.signIn(subject, broker, stubs)
            }
            #expect(try await signIn("g-before").status == 201)
            #expect(try await broker.get("/readyz").status == 200)

            #expect(try await PostgresTestEnvironment.pgCtl(["stop", "-m", "fast", "-w"]) == 0)
            stopped = true

            for subject in ["g-before", "g-during"] {
                let started = ContinuousClock.now
                let refused = try await signIn(subject)
                #expect(refused.status == 503, "\(subject): \(refused.status) \(refused.errorCode ?? "")")
                #expect(refused.errorCode == "STORAGE_UNAVAILABLE")
                #expect(refused.headers["retry-after"] == String(APIError.retryAfterSeconds))
                // A refused connection answers at once, not after the 5 s connect timeout.
                #expect(started.duration(to: .now) < .seconds(4.5))
            }
            let notReady = try await broker.get("/readyz")
            #expect(notReady.status == 503)
            #expect(notReady.errorCode == "STORAGE_UNAVAILABLE")
            #expect(notReady.headers["retry-after"] != nil)
            #expect(try await broker.get("/healthz").status == 200)
            let jwks = try await broker.get("/.well-known/jwks.json")
            #expect(jwks.status == 200)
            #expect(jwks.json?["keys"]?.arrayValue?.isEmpty == false)

            #expect(try await PostgresTestEnvironment.pgCtl(["start", "-w", "-t", "60"]) == 0)
            stopped = false

            // The same process, not restarted: ready again, and signing in again.
            #expect(try await Self.becomesReady(broker))
            #expect(try await signIn("g-before").status == 200)
            #expect(try await signIn("g-during").status == 201)
            // The refused sign-in of g-during stored nothing: the account exists once, made after the outage.
            #expect(try await schema.count("accounts") == 2)
            #expect(try await schema.count("identities", where: "subject = 'g-during'") == 1)
            #expect(broker.child.isRunning)
            #expect(!broker.child.stderr.contains("postgres://postgres:"), "no credentials in the logs")
        } catch {
            if stopped { _ = try? await PostgresTestEnvironment.pgCtl(["start", "-w", "-t", "60"]) }
            _ = try? await broker.stop()
            await Self.tearDown(schema, directory, stubs)
            throw error
        }
        #expect(try await broker.stop() == 0)
        await Self.tearDown(schema, directory, stubs)
    }

    /// A server that stops answering without closing its connections (every process of the cluster frozen
    /// with SIGSTOP, as a host gone from the network): requests get 503 `STORAGE_UNAVAILABLE` with `Retry-After`
    /// within 10 s, never a hang, whether they meet a pooled connection or open a new one; once the server
    /// answers again, the stuck connections have been dropped and the broker serves (contract section 17).
    @Test func aServerThatStopsAnsweringIs503WithinTenSecondsAndServesAgainAfterwards() async throws {
        let (schema, directory, stubs, broker) = try await Self.startBroker()
        var frozen = false
        do {
            func signIn(_ subject: String) async throws -> InstanceResponse {
                try await Self.signIn(subject, broker, stubs)
            }
            #expect(try await signIn("g-before").status == 201)

            try PostgresTestEnvironment.signalOutageServer(SIGSTOP)
            frozen = true
            // Two at once, then two more: the pooled connections meet the frozen server first, then new ones.
            for round in 0..<2 {
                let started = ContinuousClock.now
                async let first = signIn("g-before")
                async let second = signIn("g-during-\(round)")
                for refused in try await [first, second] {
                    #expect(refused.status == 503, "round \(round): \(refused.status) \(refused.errorCode ?? "")")
                    #expect(refused.errorCode == "STORAGE_UNAVAILABLE")
                    #expect(refused.headers["retry-after"] == String(APIError.retryAfterSeconds))
                }
                // The contract's bound (section 17): answered within 10 s, not after TCP keepalives gave up.
                #expect(started.duration(to: .now) < .seconds(10), "round \(round)")
            }
            #expect(try await broker.get("/readyz").status == 503)
            #expect(try await broker.get("/healthz").status == 200)

            try PostgresTestEnvironment.signalOutageServer(SIGCONT)
            frozen = false
            #expect(try await Self.becomesReady(broker))
            #expect(try await signIn("g-before").status == 200)
            #expect(try await signIn("g-during-0").status == 201)
            // Nothing refused was stored: two accounts, g-during-1 never made.
            #expect(try await schema.count("accounts") == 2)
            #expect(try await schema.count("identities", where: "subject = 'g-during-1'") == 0)
            #expect(broker.child.isRunning)
        } catch {
            if frozen { try? PostgresTestEnvironment.signalOutageServer(SIGCONT) }
            _ = try? await broker.stop()
            await Self.tearDown(schema, directory, stubs)
            throw error
        }
        #expect(try await broker.stop() == 0)
        await Self.tearDown(schema, directory, stubs)
    }
}
