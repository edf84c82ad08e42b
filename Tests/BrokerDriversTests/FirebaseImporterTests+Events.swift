import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// The import's events (contract section 16): each account it writes is a `user.created` event, queued in the batch's
/// transaction; an account left unchanged or refused is none, and the command line's import audits nothing.
extension FirebaseImporterTests {
    /// A memory store and a SQLite one in memory, both routing `user.created` to one endpoint.
    static func routedStores(_ clock: any Clock) async throws -> [any BrokerStore] {
        let secret = try #require(WebhookSecret(text: "whsec_c3R1Yi1ldmVudHMtc2VjcmV0LTAxMjM0NTY3ODk="))
        let settings = EventSettings(endpoints: [
            EventEndpoint(url: "https://app.example/events", secret: secret, types: [.userCreated])
        ])
        let routing = EventRouting(settings: settings, clock: clock)
        let database = try await SQLiteDatabase.open(path: ":memory:")
        return [
            MemoryBrokerStore(clock: clock, events: routing),
            try await SQLBrokerStore(database: database, clock: clock, events: routing),
        ]
    }

    @Test func eachImportedAccountIsAUserCreatedEventAndNoOtherIs() async throws {
        let clock = ManualClock(Date())
        for store in try await Self.routedStores(clock) {
            try await store.create(
                Account(id: AccountID("held"), email: "held@example.com", emailVerified: true, createdAt: clock.now),
                options: AccountWriteOptions())
            let export = try Self.export(
                Self.users(2) + [
                    #"{"localId": "held"}"#, #"{"localId": "other", "email": "HELD@example.com"}"#,
                ])
            let report = try await Self.importer(store, clock: clock).run(export)
            #expect(report.imported == 2 && report.unchanged == 1 && report.failed.count == 1)
            let jobs = try await store.outboxJobs(uid: nil, limit: 100)
            #expect(jobs.allSatisfy { $0.kind == .event && !$0.secret && $0.state == .pending })
            #expect(Set(jobs.compactMap(\.uid)) == [AccountID("u0"), AccountID("u1")])
            #expect(jobs.count == 2, "one event per account written, none for the unchanged or refused ones")
            for job in jobs {
                let body = try #require(JSONValue.parse(job.payload)?["body"])
                #expect(body["type"] == "user.created" && body["data"]?["uid"]?.stringValue == job.uid?.rawValue)
                #expect(body["data"]?["actor"] == "admin")
            }
            #expect(try await store.auditEvents(uid: nil, before: nil, limit: 10).isEmpty, "the CLI audits none")

            // Again: every account is unchanged now, and no event is queued.
            let again = try await Self.importer(store, clock: clock).run(export)
            #expect(again.unchanged == 3 && again.imported == 0)
            #expect(try await store.outboxJobs(uid: nil, limit: 100).count == 2)
        }
    }
}
