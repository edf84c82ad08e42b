import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@Suite struct KeyRingTests {
    @Test func keysAreSharedThroughTheStoreAndRotationReachesOtherInstances() async throws {
        let clock = ManualClock()
        let store = MemoryBrokerStore(clock: clock)
        let first = KeyRing(store: store, clock: clock, algorithm: .es256, tokenLifetime: 3600)
        let second = KeyRing(store: store, clock: clock, algorithm: .es256, tokenLifetime: 3600)
        try await first.load()
        try await second.load()
        let original = try await first.current().id
        #expect(try await second.current().id == original)
        #expect(await store.signingKeys().count == 1)

        try await first.rotate()
        let rotated = try await first.current().id
        #expect(rotated != original)
        // The other instance learns the new kid at once when asked for it...
        clock.advance(by: 2)
        #expect(await second.key(id: rotated) != nil)
        // ...and signs with it after its periodic reload.
        clock.advance(by: KeyRing.reloadInterval)
        #expect(try await second.current().id == rotated)
        // The retired key stays published for the lifetime of its tokens, then goes.
        #expect(await second.key(id: original) != nil)
        clock.advance(by: 3601)
        #expect(await second.key(id: original) == nil)
        #expect(await second.published().map(\.id) == [rotated])
    }

    @Test func anUnknownKidReloadsAtMostOncePerSecond() async throws {
        let clock = ManualClock()
        let store = MemoryBrokerStore(clock: clock)
        let ring = KeyRing(store: store, clock: clock, algorithm: .rs256, tokenLifetime: 3600)
        try await ring.load()
        #expect(await ring.key(id: "nope") == nil)
        let other = KeyRing(store: store, clock: clock, algorithm: .rs256, tokenLifetime: 3600)
        try await other.load()
        try await other.rotate()
        let fresh = try await other.current().id
        #expect(await ring.key(id: fresh) == nil)  // within a second of the last reload
        clock.advance(by: 1.5)
        #expect(await ring.key(id: fresh)?.algorithm == .rs256)
    }
}
