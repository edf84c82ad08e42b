import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The unknown-`kid` refetch limit counts only refetches caused by unknown `kid`s (issue 10, item 9).
extension JWKSCacheTests {
    @Test func aKeyFirstUsedRightAfterTheFirstFetchIsPickedUp() async throws {
        let client = serving()
        let cache = cache(client)
        #expect(try await cache.key(id: "p-1") != nil)
        #expect(client.requests.count == 1)
        // The provider rotates a second later: the first fetch must not count against the limit.
        let newKid = try keys.rotate()
        clock.advance(by: 1)
        #expect(try await cache.key(id: KeyID(newKid)) != nil)
        #expect(client.requests.count == 2)
        // That refetch did count: another unknown kid within 30 s fetches nothing.
        clock.advance(by: 5)
        #expect(try await cache.key(id: "nope") == nil)
        #expect(client.requests.count == 2)
        clock.advance(by: 25)
        #expect(try await cache.key(id: "nope") == nil)
        #expect(client.requests.count == 3)
    }

    @Test func aKeyFirstUsedRightAfterAScheduledFetchIsPickedUp() async throws {
        let client = serving(maxAge: 100)
        let cache = cache(client)
        #expect(try await cache.key(id: "p-1") != nil)
        clock.advance(by: 101)
        #expect(try await cache.key(id: "p-1") != nil)  // the scheduled refetch
        #expect(client.requests.count == 2)
        let newKid = try keys.rotate()
        clock.advance(by: 1)
        #expect(try await cache.key(id: KeyID(newKid)) != nil)
        #expect(client.requests.count == 3)
    }

    @Test func concurrentCallersWithTheNewKidShareOneRefetch() async throws {
        let keys = self.keys
        let client = ScriptedHTTPClient { _ in
            try await Task.sleep(for: .milliseconds(20))
            return ScriptedHTTPClient.json(200, keys.jwks)
        }
        let cache = cache(client)
        #expect(try await cache.key(id: "p-1") != nil)
        let newKid = try keys.rotate()
        clock.advance(by: 1)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 { group.addTask { try await cache.key(id: KeyID(newKid)) != nil } }
            for try await found in group { #expect(found) }
        }
        #expect(client.requests.count == 2)
    }
}
