import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The console's failing deliveries in Chromium (contract section 16): an event the app's endpoint refused is listed
/// with its kind, endpoint, attempts and last error, never a secret; an admin retries it after a confirmation, and it
/// is delivered under the same `webhook-id` once the endpoint answers 2xx.
extension ConsoleBrowserTests {
    @Test(
        .enabled(
            if: installed || required, "Chromium is not installed here (apt-get install -y chromium chromium-driver)"),
        .disabled(
            if: ProcessInfo.processInfo.environment["BROKER_TEST_DEFER_BROWSER"] == "1",
            "BROKER_TEST_DEFER_BROWSER=1: run on its own (swift test --filter ConsoleBrowserTests)"),
        .timeLimit(.minutes(10)))
    func aFailingDeliveryIsShownAndRetriedInChromium() async throws {
        try #require(Self.installed, "\(Self.chromium) or \(Self.chromedriver) is missing")
        let python = try await Self.seleniumPython()
        let adminToken = Hex.encode(SecureRandom.bytes(16))
        let secretFile = try StubAppHooks.writeSecretFile()
        try await withBroker(
            adminToken: adminToken,
            configure: { document in
                // The stubs' app, found where the stubs serve Google's keys.
                guard case .object(var members) = document,
                    let jwks = members["providers"]?["google"]?["jwksUrl"]?.stringValue, jwks.hasSuffix("/google/jwks")
                else { return document }
                let url = String(jwks.dropLast("/google/jwks".count)) + StubAppHooks.eventsPath
                members["events"] = [
                    "endpoints": [["url": .string(url), "secretFile": .string(secretFile), "types": ["user.created"]]]
                ]
                return .object(members)
            }
        ) { broker in
            let endpoint = broker.stubs.baseURL + StubAppHooks.eventsPath
            #expect(broker.services.config.events.endpoints.map(\.url) == [endpoint])
            // The endpoint is down (503) for the first attempt.
            broker.stubs.appHooks.script(StubAppHooks.eventsPath, StubAppHooks.Answer(status: 503, times: 1))
            #expect(
                try await broker.post("/v1/signup", ["email": "dee@example.com", "password": "secret-123"]).status
                    == 201)
            let worker = OutboxWorker(store: broker.store)
            await worker.register(
                .event, EventDeliveryHandler(settings: broker.services.config.events, client: try CurlHTTPClient()))
            #expect(try await worker.runOnce() == 1)
            let failing = try #require(try await broker.store.outboxJobs(uid: nil, limit: 10).first)
            #expect(failing.kind == .event && failing.attempts == 1 && failing.isFailing)
            let backoff = failing.nextAttemptAt

            try await Self.runScenarios(
                python, broker: broker, adminToken: adminToken,
                ["CONSOLE_SCENARIO": "outbox", "CONSOLE_FAILING_JOB": failing.id, "CONSOLE_FAILING_TARGET": endpoint])

            // Scheduled again now, not at its backoff: still the one job, not attempted again yet.
            let scheduled = try #require(try await broker.store.outboxJob(id: failing.id))
            #expect(scheduled.state == .pending && scheduled.attempts == 1 && scheduled.nextAttemptAt <= Date())
            #expect(scheduled.nextAttemptAt < backoff || backoff <= Date())
            // The endpoint answers 2xx now: delivered, under the same webhook-id.
            #expect(try await worker.runOnce() == 1)
            #expect(try await broker.store.outboxJob(id: failing.id)?.state == .delivered)
            let calls = broker.stubs.appHooks.calls(to: StubAppHooks.eventsPath)
            #expect(calls.count == 2 && calls.allSatisfy(\.verified))
            #expect(calls[0].headers["webhook-id"] == calls[1].headers["webhook-id"])
        }
    }
}
