import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// A deletion that derives outbox jobs from the account inside its own transaction (``AccountDeletion``).
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func deletionQueuesTheJobsDerivedFromTheAccountAsItStood(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            var apple = Self.identity("apple", "a-1")
            apple.providerToken = "c2VhbGVkLXRva2Vu"
            let alice = Self.account("alice", email: "alice@example.com", identities: [Self.identity("kakao", "41", at: 1), apple])
            try await store.create(alice)
            let now = fixture.clock.now
            try await store.delete(id: alice.id, options: AccountWriteOptions()) { account in
                account.identities.sorted { $0.subject < $1.subject }.map { identity in
                    OutboxJob(
                        kind: OutboxKind("test.\(identity.provider)"), uid: account.id,
                        payload: Array((identity.providerToken ?? identity.subject).utf8), createdAt: now)
                }
            }
            #expect(try await store.account(id: alice.id) == nil)
            let jobs = try await store.outboxJobs(uid: alice.id, limit: 10)
            #expect(Set(jobs.map(\.kind.rawValue)) == ["test.kakao", "test.apple"])
            #expect(Set(jobs.map { String(decoding: $0.payload, as: UTF8.self) }) == ["41", "c2VhbGVkLXRva2Vu"])
            #expect(jobs.allSatisfy { $0.state == .pending })
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func deletionWhoseJobsThrowDeletesAndQueuesNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", email: "alice@example.com", identities: [Self.identity("kakao", "41")])
            try await store.create(alice)
            let firebase = FirebaseRevocation.job(uid: alice.id, at: fixture.clock.now)
            await #expect(throws: BodyFailure.self) {
                try await store.delete(id: alice.id, options: AccountWriteOptions(enqueuing: [firebase])) { _ in
                    throw BodyFailure()
                }
            }
            #expect(try await store.account(id: alice.id) == alice)
            #expect(try await store.outboxJobs(uid: alice.id, limit: 10).isEmpty)
            await expectStoreError(.notFound) {
                try await store.delete(id: AccountID("nobody"), options: AccountWriteOptions()) { _ in [] }
            }
        }
    }
}
