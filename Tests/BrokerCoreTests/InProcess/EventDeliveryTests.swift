import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Events (contract section 16): queued in the outbox in the transaction of their change, one job per endpoint that
/// takes the type, nothing for a refused change; delivered signed, with the same `webhook-id` on every attempt and
/// a fresh timestamp and signature each time; never a secret in the body.
@Suite struct EventDeliveryTests {
    static let all = EventType.allCases.map { JSONValue.string($0.rawValue) }
    static let adminToken = "admin-token-for-event-tests"
    static let admin = ["Authorization": "Bearer \(adminToken)"]

    /// A broker whose events go to the stubs' app, on `clock`.
    static func start(clock: ManualClock, types: [JSONValue] = all) async throws -> InProcessBroker {
        let file = try StubAppHooks.writeSecretFile()
        return try await InProcessBroker.start(clock: clock, adminToken: adminToken) { document in
            guard case .object(var members) = document else { return document }
            members["events"] = [
                "endpoints": [
                    [
                        "url": .string(InProcessBroker.stubsBaseURL + StubAppHooks.eventsPath),
                        "secretFile": .string(file), "types": .array(types),
                    ]
                ]
            ]
            return .object(members)
        }
    }

    static func eventJobs(_ broker: InProcessBroker) async -> [OutboxJob] {
        await broker.store.outboxJobs(uid: nil, limit: 100).filter { $0.kind == .event }
    }

    static func worker(_ broker: InProcessBroker, _ clock: ManualClock) async -> OutboxWorker {
        let worker = OutboxWorker(store: broker.store, clock: clock)
        await worker.register(
            .event,
            EventDeliveryHandler(
                settings: broker.services.config.events, client: broker.stubs.inProcessClient(), clock: clock))
        return worker
    }

    @Test func aSignUpQueuesItsEventsWithTheChangeAndARefusedOneQueuesNone() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        let refused = await broker.post("/v1/signup", ["email": "short@example.com", "password": "x"])
        #expect(refused.status == 400)
        #expect(await Self.eventJobs(broker).isEmpty)

        let response = await broker.post("/v1/signup", ["email": "kim@example.com", "password": "secret-123"])
        #expect(response.status == 201)
        let uid = try #require(response.json?["user"]?["uid"]?.stringValue)
        let jobs = await Self.eventJobs(broker)
        #expect(jobs.count == 2)
        #expect(jobs.allSatisfy { $0.uid == AccountID(uid) && !$0.secret })

        let worker = await Self.worker(broker, clock)
        #expect(try await worker.runOnce() == 2)
        let calls = broker.stubs.appHooks.calls(to: StubAppHooks.eventsPath)
        #expect(calls.count == 2 && calls.allSatisfy { $0.verified })
        #expect(Set(calls.compactMap { $0.body?["type"]?.stringValue }) == ["user.created", "user.signed_in"])
        #expect(Set(calls.compactMap { $0.headers["webhook-id"] }).count == 2)
        let body = try #require(calls.first?.body)
        #expect(body["data"]?["uid"]?.stringValue == uid)
        #expect(body["timestamp"]?.stringValue != nil)
        // Never a secret: the body names no token, hash or password.
        let text = String(decoding: body.serialized(), as: UTF8.self)
        #expect(!text.contains("secret-123") && !text.contains("refreshToken") && !text.contains("idToken"))
        #expect(await Self.eventJobs(broker).allSatisfy { $0.state == .delivered })
    }

    @Test func aRetryAfterA500KeepsTheIDAndSignsAfresh() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock, types: ["user.deleted"])
        let response = await broker.post("/v1/signup", ["email": "lee@example.com", "password": "secret-123"])
        let idToken = try #require(response.json?["idToken"]?.stringValue)
        #expect(await Self.eventJobs(broker).isEmpty, "user.created is not among the endpoint's types")
        #expect(await broker.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer \(idToken)"]).status == 204)
        #expect(await Self.eventJobs(broker).count == 1)

        broker.stubs.appHooks.script(StubAppHooks.eventsPath, StubAppHooks.Answer(status: 500, times: 1))
        let worker = await Self.worker(broker, clock)
        _ = try await worker.runOnce()
        #expect(await Self.eventJobs(broker).first?.state == .pending)
        clock.advance(by: 2)
        _ = try await worker.runOnce()
        let calls = broker.stubs.appHooks.calls(to: StubAppHooks.eventsPath)
        #expect(calls.count == 2)
        #expect(calls[0].headers["webhook-id"] == calls[1].headers["webhook-id"])
        #expect(calls[0].headers["webhook-timestamp"] != calls[1].headers["webhook-timestamp"])
        #expect(calls[0].headers["webhook-signature"] != calls[1].headers["webhook-signature"])
        #expect(calls[1].body?["type"]?.stringValue == "user.deleted")
        #expect(await Self.eventJobs(broker).first?.state == .delivered)
    }

    @Test func theAdminAPIShowsAFailingDeliveryAndRetriesIt() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock, types: ["user.created"])
        broker.stubs.appHooks.script(StubAppHooks.eventsPath, StubAppHooks.Answer(status: 503, times: 1))
        #expect(await broker.post("/v1/signup", ["email": "max@example.com", "password": "secret-123"]).status == 201)
        let worker = await Self.worker(broker, clock)
        _ = try await worker.runOnce()

        let failing = await broker.get("/admin/v1/outbox?failing=true", headers: Self.admin)
        #expect(failing.status == 200)
        let jobs = try #require(failing.json?["jobs"]?.arrayValue)
        #expect(jobs.count == 1)
        #expect(jobs.first?["kind"]?.stringValue == "event" && jobs.first?["lastError"]?.stringValue != nil)
        #expect(jobs.first?["payload"] == nil, "never the payload")
        let id = try #require(jobs.first?["id"]?.stringValue)

        // The retry makes it due now, without waiting for its backoff.
        let retried = await broker.post("/admin/v1/outbox/\(id)/retry", [:], headers: Self.admin)
        #expect(retried.status == 200)
        #expect(retried.json?["job"]?["state"]?.stringValue == "pending")
        #expect(try await worker.runOnce() == 1)
        let stored = await broker.store.outboxJob(id: id)
        #expect(stored?.state == .delivered)
        let calls = broker.stubs.appHooks.calls(to: StubAppHooks.eventsPath)
        #expect(calls.count == 2 && calls[0].headers["webhook-id"] == calls[1].headers["webhook-id"])

        // A delivered job is never sent again; an unknown one is not found; and no token, no answer.
        let again = await broker.post("/admin/v1/outbox/\(id)/retry", [:], headers: Self.admin)
        #expect(again.status == 400 && again.errorCode == "INVALID_REQUEST")
        #expect(await broker.post("/admin/v1/outbox/nope/retry", [:], headers: Self.admin).status == 404)
        #expect(await broker.get("/admin/v1/outbox").status == 401)
        #expect(await broker.get("/admin/v1/outbox?failing=true", headers: Self.admin).json?["jobs"] == [])
    }

    /// An admin's changes are events too, queued with them; a refused one (an unknown user) queues none.
    @Test func anAdminsChangesQueueTheirEvents() async throws {
        let clock = ManualClock(Date())
        let types: [JSONValue] = ["user.updated", "user.disabled", "user.enabled", "sessions.revoked", "user.deleted"]
        let broker = try await Self.start(clock: clock, types: types)
        let uid = try #require(
            await broker.post("/v1/signup", ["email": "ned@example.com", "password": "secret-123"])
                .json?["user"]?["uid"]?.stringValue)
        let path = "/admin/v1/users/\(uid)"
        #expect(await broker.request("PATCH", path, json: ["disabled": true], headers: Self.admin).status == 200)
        #expect(
            await broker.request("PATCH", path, json: ["disabled": false, "displayName": "Ned"], headers: Self.admin)
                .status == 200)
        #expect(await broker.post(path + "/revoke-sessions", [:], headers: Self.admin).status == 204)
        #expect(
            await broker.request("PATCH", "/admin/v1/users/nobody", json: ["disabled": true], headers: Self.admin)
                .status == 404)
        #expect(await broker.request("DELETE", path, headers: Self.admin).status == 204)
        let worker = await Self.worker(broker, clock)
        _ = try await worker.runOnce()
        let delivered = broker.stubs.appHooks.calls(to: StubAppHooks.eventsPath).compactMap { $0.body }
        #expect(
            Set(delivered.compactMap { $0["type"]?.stringValue })
                == ["user.disabled", "user.enabled", "user.updated", "sessions.revoked", "user.deleted"])
        #expect(delivered.count == 5)
        #expect(delivered.allSatisfy { $0["data"]?["uid"]?.stringValue == uid && $0["data"]?["actor"] == "admin" })
    }
}
