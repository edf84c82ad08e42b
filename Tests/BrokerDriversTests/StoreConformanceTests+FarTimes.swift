import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Times no honest input names, stored anyway without a trap (issue 10, item 5: a mark expiring in 1e17 seconds
/// killed the process where its expiry became milliseconds).
extension StoreConformanceTests {
    @Test(arguments: StoreBackend.enabled)
    func aMarkExpiringFarAheadIsStoredAndStillSingleUse(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice")
            try await store.create(alice)
            for (index, seconds) in [1e17, 1e300, Double.infinity].enumerated() {
                let mark = SingleUseMark(key: "far-\(index)", expiresAt: Date(timeIntervalSince1970: seconds))
                _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark)) { _ in }
                await expectStoreError(.alreadyUsed) {
                    _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark)) {
                        $0.displayName = "replayed"
                    }
                }
            }
            #expect(try await store.account(id: alice.id)?.displayName == nil)
        }
    }
}
