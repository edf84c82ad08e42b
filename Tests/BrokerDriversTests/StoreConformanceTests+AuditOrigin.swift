import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Where an audit event's request came from (client address, user agent), on every backend: stored as given,
/// absent for the CLI's events, and written by the sign-in's own transaction like the rest of the event.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func auditEventsKeepTheirRequestsOrigin(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let web = AuditEvent(
                time: date(ms: Self.t0), uid: AccountID("a"), action: .signIn, provider: "google", actor: .user,
                requestID: "r-web", id: "id-web",
                origin: RequestOrigin(clientAddress: "203.0.113.7", userAgent: "MyApp/1.2 (iPhone; iOS 18.1) 한국어"))
            let cli = AuditEvent(
                time: date(ms: Self.t0 + 1), uid: AccountID("a"), action: .disable, actor: .admin, requestID: "cli",
                id: "id-cli", origin: nil)
            try await store.appendAuditEvent(web)
            try await store.appendAuditEvent(cli)
            let account = Self.account("b", email: "b@example.com")
            let signIn = AuditEvent(
                time: date(ms: Self.t0 + 2), uid: account.id, action: .signIn, actor: .user, outcome: "created",
                requestID: "r-create", id: "id-create", origin: RequestOrigin(clientAddress: "2001:db8::1", userAgent: nil))
            try await store.create(account, options: AccountWriteOptions(recording: [signIn]))
            let stored = try await store.auditEvents(uid: nil, before: nil, limit: 10)
            #expect(stored == [signIn, cli, web])
            #expect(stored.last?.clientAddress == "203.0.113.7")
            #expect(stored.last?.userAgent == "MyApp/1.2 (iPhone; iOS 18.1) 한국어")
            #expect(stored[1].clientAddress == nil && stored[1].userAgent == nil)
            #expect(stored[0].clientAddress == "2001:db8::1" && stored[0].userAgent == nil)
        }
    }
}
