import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Races that SQLite's single writer rules out and PostgreSQL's concurrent writers do not: the store's
/// read-modify-write and check-then-insert changes must still come out as if run one after another.
@Suite("PostgreSQL store races", .enabled(if: StoreBackend.postgresURL != nil, "BROKER_TEST_POSTGRES_URL is not set (scripts/with-postgres.sh swift test sets it: docs/postgres.md#testing)"))
struct PostgresStoreRaceTests {
    /// Two stores (two "instances", each with its own pool) on one fresh schema.
    func withTwoStores(_ body: (SQLBrokerStore, SQLBrokerStore) async throws -> Void) async throws {
        let schema = try await PostgresTestSchema.create()
        let first = try PostgresDatabase(url: schema.url, poolSize: 4)
        let second = try PostgresDatabase(url: schema.url, poolSize: 4)
        do {
            try await body(try await SQLBrokerStore(database: first), try await SQLBrokerStore(database: second))
        } catch {
            await first.close()
            await second.close()
            await schema.drop()
            throw error
        }
        await first.close()
        await second.close()
        await schema.drop()
    }

    /// The sweep of inactive guests (contract section 13) run by two instances at once: one holds the lease and
    /// deletes every inactive guest once, with one `delete` event each; the other deletes nothing; an active guest
    /// and an account that is no guest stay.
    @Test func twoInstancesSweepingGuestsAtOnceDeleteEachInactiveGuestOnce() async throws {
        try await withTwoStores { first, second in
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let clock = ManualClock(start + 31 * 86_400)
            for index in 0..<10 {
                try await first.create(
                    Account(id: AccountID("old-\(index)"), createdAt: start, origin: .anonymous, isAnonymous: true))
            }
            try await first.create(
                Account(id: AccountID("active"), createdAt: start, lastSignInAt: start + 30 * 86_400,
                    origin: .anonymous, isAnonymous: true))
            try await first.create(Account(id: AccountID("member"), email: "m@example.com", createdAt: start))
            func sweeper(_ store: SQLBrokerStore) async throws -> GuestService {
                let accounts = try await AccountService(
                    store: store, clock: clock, linkByVerifiedEmail: false, passwords: SaltedDigestPasswordHasher())
                return GuestService(
                    settings: AnonymousSettings(enabled: true, deleteAfterDays: 30, maxPerAddressPerHour: 30),
                    store: store, accounts: accounts, deletion: AccountDeletion(revocation: .brokerOnly), clock: clock)
            }
            let (one, two) = (try await sweeper(first), try await sweeper(second))
            async let byOne = one.sweep(holder: "instance-1")
            async let byTwo = two.sweep(holder: "instance-2")
            let counts = [try await byOne, try await byTwo]
            #expect(counts.sorted() == [0, 10])
            let left = try await first.listAccounts(afterUID: nil, limit: 100).map(\.id.rawValue).sorted()
            #expect(left == ["active", "member"])
            let deletions = try await first.auditEvents(uid: nil, before: nil, limit: 100).filter { $0.action == .delete }
            #expect(deletions.count == 10 && Set(deletions.compactMap(\.uid)).count == 10)
        }
    }

    @Test func concurrentUpdatesOfOneAccountLoseNoChange() async throws {
        try await withTwoStores { first, second in
            let id = AccountID("counter")
            try await first.create(Account(id: id, displayName: "0", createdAt: Date(timeIntervalSince1970: 1_800_000_000)))
            // Each update reads the count and writes it plus one; a lost update would leave fewer than 24.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<24 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        _ = try await store.update(id: id) { account in
                            account.displayName = String((Int(account.displayName ?? "") ?? -1000) + 1)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await first.account(id: id)?.displayName == "24")
        }
    }

    @Test func aRetryJoiningASessionNeverOutlivesItsConcurrentRevocation() async throws {
        try await withTwoStores { first, second in
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            func token(_ hash: String, session: String) -> RefreshTokenRecord {
                RefreshTokenRecord(
                    tokenHash: hash, sessionID: session, accountID: AccountID("alice"), signInProvider: "google",
                    createdAt: start, expiresAt: start + 86_400)
            }
            for round in 0..<25 {
                let session = "s-\(round)"
                try await first.insertRefreshToken(token("t-\(round)", session: session))
                async let added = first.addToSession(token("retry-\(round)", session: session))
                async let revoked: Void = second.revokeSession(id: session, at: start + 1)
                let joined = try await added
                try await revoked
                // Either the retry joined before the revocation (and was revoked with the session) or it was
                // refused: no token of the session may be left alive.
                let retry = try await first.refreshToken(hash: "retry-\(round)")
                #expect((retry != nil) == joined, "round \(round)")
                if let retry { #expect(retry.revokedAt != nil, "round \(round): a live token in a revoked session") }
                #expect(try await first.refreshToken(hash: "t-\(round)")?.revokedAt != nil)
            }
        }
    }

    @Test func concurrentPasswordAttemptsThroughTwoInstancesReserveNoMoreThanTheLimit() async throws {
        try await withTwoStores { first, second in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            // 30 wrong guesses at once, half through each instance: exactly 10 may be tried, the rest are locked out.
            let unlocks = try await withThrowingTaskGroup(of: Date?.self) { group in
                for index in 0..<30 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        try await store.reserveLoginAttempt(
                            emailKey: "target@example.com", at: now + Double(index) / 1000, window: 900, limit: 10)
                    }
                }
                return try await group.reduce(into: [Date?]()) { $0.append($1) }
            }
            #expect(unlocks.filter { $0 == nil }.count == 10)
            #expect(unlocks.compactMap { $0 }.count == 20)
            #expect(try await first.loginFailures(emailKey: "target@example.com", since: now - 900).count == 10)
        }
    }

    @Test func concurrentFirstSignInsThroughTwoInstancesMakeOneAccount() async throws {
        try await withTwoStores { first, second in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let identity = ExternalIdentity(
                provider: ProviderID("google"), subject: "g-shared", email: "shared@example.com", emailVerified: true)
            let hasher = Argon2PasswordHasher(memoryKiB: 1024, iterations: 1)  // only for the service's decoy hash
            let services = [
                try await AccountService(store: first, clock: ManualClock(now), linkByVerifiedEmail: false, passwords: hasher),
                try await AccountService(store: second, clock: ManualClock(now), linkByVerifiedEmail: false, passwords: hasher),
            ]
            let outcomes = try await withThrowingTaskGroup(of: SignInOutcome.self) { group in
                for index in 0..<16 {
                    let service = services[index % 2]
                    group.addTask { try await service.signIn(SignInAttempt(VerifiedIdentity(identity: identity))) }
                }
                var outcomes: [SignInOutcome] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter(\.isNewUser).count == 1)
            #expect(Set(outcomes.map(\.account.id)).count == 1)
            let stored = try await second.account(provider: ProviderID("google"), subject: "g-shared")
            #expect(stored?.id == outcomes.first?.account.id)
            #expect(try await first.account(email: "SHARED@example.com")?.id == stored?.id)
        }
    }
}
