import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Schema version 15: guests (contract section 13), on every backend: the flag round-trips and filters listings,
/// inactive guests are found by sign-in and refresh, the per-address count holds its window, and one holder at a
/// time gets a lease.
extension StoreConformanceTests {
    static func guest(_ uid: String, createdAt: Int64 = t0, lastSignInAt: Int64? = nil) -> Account {
        Account(
            id: AccountID(uid), createdAt: date(ms: createdAt), lastSignInAt: lastSignInAt.map { date(ms: $0) },
            origin: .anonymous, isAnonymous: true)
    }

    @Test(arguments: StoreBackend.enabled)
    func aGuestIsStoredFoundFilteredAndUpgraded(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let guest = Self.guest("guest")
            try await store.create(guest)
            try await store.create(Self.account("user", email: "u@example.com"))
            #expect(try await store.account(id: guest.id) == guest)
            let guests = try await store.listAccounts(filter: AccountFilter(anonymous: true), after: nil, limit: 10)
            #expect(guests.map(\.id.rawValue) == ["guest"])
            let others = try await store.listAccounts(filter: AccountFilter(anonymous: false), after: nil, limit: 10)
            #expect(others.map(\.id.rawValue) == ["user"])
            #expect(try await store.listAccounts(filter: AccountFilter(), after: nil, limit: 10).count == 2)
            let upgraded = try await store.update(id: guest.id) { $0.isAnonymous = false }
            #expect(!upgraded.isAnonymous)
            #expect(try await store.account(id: guest.id)?.isAnonymous == false)
            #expect(try await store.listAccounts(filter: AccountFilter(anonymous: true), after: nil, limit: 10).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func inactiveGuestsAreThoseWithNoSignInAndNoRefreshSinceTheCutoff(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let day: Int64 = 86_400_000
            try await store.create(Self.guest("idle", createdAt: Self.t0))
            try await store.create(Self.guest("signedIn", createdAt: Self.t0, lastSignInAt: Self.t0 + 9 * day))
            try await store.create(Self.guest("refreshed", createdAt: Self.t0))
            try await store.insertRefreshToken(
                Self.token("h1", session: "s1", uid: "refreshed", createdAt: Self.t0 + 9 * day))
            try await store.create(Self.guest("young", createdAt: Self.t0 + 9 * day))
            var user = Self.account("user")
            user.createdAt = date(ms: Self.t0)
            try await store.create(user)
            let cutoff = date(ms: Self.t0 + 5 * day)
            #expect(try await store.inactiveGuests(before: cutoff, limit: 10).map(\.rawValue) == ["idle"])
            #expect(try await store.inactiveGuests(before: cutoff, limit: 0).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func guestCreationsAreCountedPerAddressWithinTheirWindow(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let start = date(ms: Self.t0)
            #expect(try await store.reserveGuestCreation(address: "a", at: start, window: 3600, limit: 2) == nil)
            #expect(try await store.reserveGuestCreation(address: "a", at: start + 1, window: 3600, limit: 2) == nil)
            let blocked = try await store.reserveGuestCreation(address: "a", at: start + 2, window: 3600, limit: 2)
            #expect(blocked == start + 3600)
            #expect(try await store.reserveGuestCreation(address: "b", at: start + 2, window: 3600, limit: 2) == nil)
            #expect(try await store.reserveGuestCreation(address: "a", at: start + 3601, window: 3600, limit: 2) == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aLeaseHasOneHolderUntilItExpires(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let now = date(ms: Self.t0)
            let granted1 = try await store.acquireLease("sweep", holder: "one", until: now + 60, now: now)
            #expect(granted1 == true)
            let granted2 = try await store.acquireLease("sweep", holder: "two", until: now + 60, now: now + 1)
            #expect(granted2 == false)
            let granted3 = try await store.acquireLease("sweep", holder: "one", until: now + 120, now: now + 2)
            #expect(granted3 == true)
            let granted4 = try await store.acquireLease("sweep", holder: "two", until: now + 200, now: now + 119)
            #expect(granted4 == false)
            let granted5 = try await store.acquireLease("sweep", holder: "two", until: now + 300, now: now + 120)
            #expect(granted5 == true)
            let granted6 = try await store.acquireLease("other", holder: "one", until: now + 60, now: now + 120)
            #expect(granted6 == true)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func instancesAskingForOneLeaseAtOnceGetItOnce(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let now = date(ms: Self.t0)
            let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for holder in 0..<8 {
                    group.addTask {
                        try await store.acquireLease("race", holder: "h\(holder)", until: now + 60, now: now)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(granted == 1)
        }
    }
}
