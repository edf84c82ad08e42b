import BrokerCore
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// An audit row whose action this broker does not know (an older or newer broker wrote it): every backend reads
/// it back with its string, lists and filters it like any other, and leaves it out of the sign-in counts.
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func anUnknownStoredActionReadsBackAsStored(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let known = AuditEvent(
                time: date(ms: Self.t0), uid: AccountID("a"), action: .signIn, provider: "google", actor: .user,
                requestID: "r-1", id: "0001", origin: nil)
            try await store.appendAuditEvent(known)
            if let database = fixture.database {
                // Written as another broker would: straight into the table.
                _ = try await database.write { connection in
                    try connection.execute(
                        "INSERT INTO audit_events (id, at, uid, action, provider, actor, outcome, request_id) "
                            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [.text("0002"), .integer(Self.t0 + 1), .text("a"), .text("future_action"), .text("google"),
                         .text("system"), .text("success"), .text("r-2")])
                }
            } else {
                try await store.appendAuditEvent(
                    AuditEvent(
                        time: date(ms: Self.t0 + 1), uid: AccountID("a"), action: AuditAction(rawValue: "future_action"),
                        provider: "google", actor: .system, requestID: "r-2", id: "0002", origin: nil))
            }
            let listed = try await store.auditEvents(uid: AccountID("a"), before: nil, limit: 10)
            #expect(listed.map(\.id) == ["0002", "0001"])
            #expect(listed.first?.action == .unrecognized("future_action"))
            #expect(listed.first?.action.rawValue == "future_action")
            #expect(listed.last == known)
            let console = store
            let filtered = try await console.auditEvents(
                matching: AuditFilter(action: AuditAction(rawValue: "future_action")), before: nil, limit: 10)
            #expect(filtered.map(\.id) == ["0002"])
            let counts = try await console.signInCounts(
                from: date(ms: Self.t0), to: date(ms: Self.t0 + 60_000), bucketMilliseconds: 60_000)
            #expect(counts.map(\.count) == [1])
        }
    }
}
