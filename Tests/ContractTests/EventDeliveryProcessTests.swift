import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Events across a crash (contract section 16): a change's event is in the outbox with the change, so a broker
/// killed with SIGKILL while the app's endpoint is down loses nothing, and the next broker on the same database
/// delivers it once, under the same `webhook-id`, signed afresh.
@Suite struct EventDeliveryProcessTests {
    /// The event jobs in `store`, read beside the running broker.
    /// The `events` section: one endpoint on the stubs' app at `port` for `user.created`, signed with `secretFile`.
    static func events(port: Int, secretFile: String) -> JSONValue {
        [
            "endpoints": [
                [
                    "url": .string("http://127.0.0.1:\(port)\(StubAppHooks.eventsPath)"),
                    "secretFile": .string(secretFile), "types": ["user.created"],
                ]
            ]
        ]
    }

    static func eventJobs(_ store: SQLBrokerStore) async throws -> [OutboxJob] {
        try await store.outboxJobs(uid: nil, limit: 100).filter { $0.kind == .event }
    }

    /// Waits up to `seconds` for `condition`, polling.
    static func waitFor(
        _ seconds: Double, _ condition: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = Date() + seconds
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    @Test(.timeLimit(.minutes(2)))
    func anEventQueuedBeforeASIGKILLIsDeliveredOnceByTheNextBroker() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let providers = try StubProviders()
        _ = try providers.start(server: MicroHTTPDServer())
        // The app's endpoint: its port taken once, then given up, so nothing listens there until it comes up.
        let down = try StubProviders()
        let port = try down.start(server: MicroHTTPDServer())
        await down.stop()
        let app = try StubProviders()
        defer {
            Task {
                await app.stop(); await providers.stop()
            }
        }

        let secretFile = try StubAppHooks.writeSecretFile()
        guard case .object(var config) = providers.brokerConfig(issuer: "https://auth.example.test") else {
            Issue.record("the stub config is not an object")
            return
        }
        config["events"] = Self.events(port: port, secretFile: secretFile)
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(JSONValue.object(config).serialized()).write(to: URL(fileURLWithPath: configPath))
        let databasePath = directory.appendingPathComponent("broker.sqlite").path
        let environment = ["BROKER_CONFIG": configPath, "BROKER_DATABASE": databasePath]

        let first = try await BrokerProcess.start(environment: environment)
        let signUp = try await first.post("/v1/signup", ["email": "kim@example.com", "password": "secret-123"])
        #expect(signUp.status == 201)
        let uid = try #require(signUp.json?["user"]?["uid"]?.stringValue)
        let database = try await SQLiteDatabase.open(path: databasePath)
        defer { Task { await database.close() } }
        let store = try await SQLBrokerStore(database: database)
        // The endpoint is down: the first broker tries, fails and keeps the job, to try again later. It is killed
        // between two attempts (a job claimed when its broker dies waits for its lease to run out).
        let between = try await Self.waitFor(20) {
            guard let job = try await Self.eventJobs(store).first else { return false }
            return job.attempts >= 1 && job.lastError != nil && job.nextAttemptAt > Date() + 0.3
        }
        let queued = try await Self.eventJobs(store)
        #expect(between, "the first broker never tried the event: \(queued)")
        #expect(queued.count == 1 && queued.first?.state == .pending && queued.first?.uid == AccountID(uid))
        let job = try #require(queued.first)
        let messageID = try #require(JSONValue.parse(job.payload)?["messageId"]?.stringValue)

        first.child.terminate(SIGKILL)
        _ = try? await first.child.wait()
        let killedAt = Date()
        #expect(app.appHooks.calls(to: StubAppHooks.eventsPath).isEmpty)

        // The endpoint comes up; a new broker on the same database delivers the event.
        _ = try app.start(server: MicroHTTPDServer(), port: port)
        let second = try await BrokerProcess.start(environment: environment)
        let delivered = try await Self.waitFor(30) {
            try await Self.eventJobs(store).first?.state == .delivered
        }
        let after = try await Self.eventJobs(store)
        #expect(delivered, "the second broker never delivered: \(after)")
        // Long enough for a second delivery, were there to be one.
        try await Task.sleep(for: .seconds(2))
        #expect(try await second.stop() == 0)

        let calls = app.appHooks.calls(to: StubAppHooks.eventsPath)
        #expect(calls.count == 1, "delivered exactly once")
        let call = try #require(calls.first)
        #expect(call.verified)
        #expect(call.headers["webhook-id"] == messageID)
        let stamp = try #require(call.headers["webhook-timestamp"].flatMap(TimeInterval.init))
        #expect(stamp >= killedAt.timeIntervalSince1970.rounded(.down), "signed afresh by the second broker")
        #expect(call.body?["type"] == "user.created" && call.body?["data"]?["uid"]?.stringValue == uid)
        #expect(after.map(\.id) == [job.id] && after.first?.attempts ?? 0 >= 2)
    }

    /// An event queued while an endpoint was configured, whose endpoint the config no longer has (issue 58): the next
    /// broker refuses it for good at its next attempt (state `refused`, the last error saying it is delivered to
    /// nobody, audited `outbox_refused`), rather than retrying it with "no handler" until it is given up.
    @Test(.timeLimit(.minutes(2)))
    func anEventWhoseEndpointWasRemovedIsRefusedForGoodNotRetried() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let providers = try StubProviders()
        _ = try providers.start(server: MicroHTTPDServer())
        // An endpoint nothing listens on: its port taken once, then given up.
        let down = try StubProviders()
        let port = try down.start(server: MicroHTTPDServer())
        await down.stop()
        defer { Task { await providers.stop() } }

        let secretFile = try StubAppHooks.writeSecretFile()
        guard case .object(var config) = providers.brokerConfig(issuer: "https://auth.example.test") else {
            Issue.record("the stub config is not an object")
            return
        }
        let withoutEvents = config
        config["events"] = Self.events(port: port, secretFile: secretFile)
        let withEventsPath = directory.appendingPathComponent("with-events.json").path
        try Data(JSONValue.object(config).serialized()).write(to: URL(fileURLWithPath: withEventsPath))
        let withoutEventsPath = directory.appendingPathComponent("without-events.json").path
        try Data(JSONValue.object(withoutEvents).serialized()).write(to: URL(fileURLWithPath: withoutEventsPath))
        let databasePath = directory.appendingPathComponent("broker.sqlite").path

        let first = try await BrokerProcess.start(environment: [
            "BROKER_CONFIG": withEventsPath, "BROKER_DATABASE": databasePath,
        ])
        let signUp = try await first.post("/v1/signup", ["email": "kim@example.com", "password": "secret-123"])
        #expect(signUp.status == 201)
        let database = try await SQLiteDatabase.open(path: databasePath)
        defer { Task { await database.close() } }
        let store = try await SQLBrokerStore(database: database)
        let tried = try await Self.waitFor(20) { try await Self.eventJobs(store).first?.lastError != nil }
        #expect(tried, "the first broker never tried the event")
        #expect(try await first.stop() == 0)
        let queued = try #require(try await Self.eventJobs(store).first)
        #expect(queued.state == .pending)

        // The endpoint is taken out of the config; a broker on the same database.
        let second = try await BrokerProcess.start(environment: [
            "BROKER_CONFIG": withoutEventsPath, "BROKER_DATABASE": databasePath,
        ])
        let finished = try await Self.waitFor(30) { try await Self.eventJobs(store).first?.state != .pending }
        let job = try #require(try await Self.eventJobs(store).first)
        #expect(finished, "still pending: \(job)")
        #expect(job.id == queued.id)
        #expect(job.state == .refused)
        #expect(job.lastError?.contains("in events.endpoints any more: delivered to nobody") == true, "\(job)")
        #expect(job.lastError?.contains("127.0.0.1:\(port)\(StubAppHooks.eventsPath)") == true)
        #expect(job.attempts == queued.attempts + 1, "one attempt, then never again")
        let audit = try await store.auditEvents(uid: nil, before: nil, limit: 100)
        let refusals = audit.filter { $0.action == .outboxRefused }
        #expect(refusals.count == 1)
        #expect(refusals.first?.provider == "event" && refusals.first?.uid == queued.uid)
        // Not tried again.
        try await Task.sleep(for: .seconds(2))
        #expect(try await Self.eventJobs(store).first?.attempts == job.attempts)
        #expect(try await second.stop() == 0)
        #expect(second.child.stderr.contains("outbox job refused for good"))
        #expect(!second.child.stderr.contains("no handler for kind"))
    }
}
