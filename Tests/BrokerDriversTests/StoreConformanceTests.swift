import BrokerCore
import BrokerFirebase
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// One suite, every backend: what any ``BrokerStore`` must do. Each case checks the state afterwards.
@Suite("BrokerStore conformance")
struct StoreConformanceTests {
    // MARK: - Fixtures

    static let t0: Int64 = 1_799_999_000_123

    static func identity(_ provider: String, _ subject: String, at offset: Int64 = 0, email: String? = nil) -> Identity {
        Identity(provider: ProviderID(provider), subject: subject, email: email, linkedAt: date(ms: t0 + offset))
    }

    static func account(
        _ uid: String, email: String? = nil, identities: [Identity] = [], name: String? = nil
    ) -> Account {
        Account(
            id: AccountID(uid), email: email, emailVerified: email != nil, displayName: name,
            createdAt: date(ms: t0), identities: identities)
    }

    static func token(
        _ hash: String, session: String, uid: String, createdAt: Int64 = t0
    ) -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: hash, sessionID: session, accountID: AccountID(uid), signInProvider: "google",
            createdAt: date(ms: createdAt), expiresAt: date(ms: createdAt + 30 * 86_400_000))
    }

    struct BodyFailure: Error {}

    // MARK: - Accounts

    @Test(arguments: StoreBackend.enabled)
    func createThenFindByIDIdentityAndEmail(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account(
                "alice", email: "Alice@Example.com",
                identities: [Self.identity("google", "g-1", email: "alice@example.com"), Self.identity("apple", "a-1", at: 5)],
                name: "Alice")
            try await store.create(alice)

            #expect(try await store.account(id: alice.id) == alice)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-1") == alice)
            #expect(try await store.account(provider: ProviderID("apple"), subject: "a-1") == alice)
            #expect(try await store.account(email: "aLICE@example.COM") == alice)
            #expect(try await store.account(email: "Alice@Example.com") == alice)
            #expect(try await store.account(id: AccountID("bob")) == nil)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-2") == nil)
            #expect(try await store.account(provider: ProviderID("apple"), subject: "g-1") == nil)
            #expect(try await store.account(email: "bob@example.com") == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func createWithTakenIdentityStoresNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", identities: [Self.identity("google", "g-1")])
            try await store.create(alice)

            let bob = Self.account(
                "bob", email: "bob@example.com", identities: [Self.identity("apple", "a-9"), Self.identity("google", "g-1", at: 1)])
            await expectStoreError(.alreadyExists) { try await store.create(bob) }

            #expect(try await store.account(id: bob.id) == nil)
            #expect(try await store.account(provider: ProviderID("apple"), subject: "a-9") == nil)
            #expect(try await store.account(email: "bob@example.com") == nil)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-1") == alice)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func createWithTakenEmailInOtherCaseOrTakenUIDStoresNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", email: "alice@example.com")
            try await store.create(alice)

            let impostor = Self.account("bob", email: "ALICE@Example.COM", identities: [Self.identity("google", "g-2")])
            await expectStoreError(.alreadyExists) { try await store.create(impostor) }
            #expect(try await store.account(id: impostor.id) == nil)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-2") == nil)
            #expect(try await store.account(email: "alice@example.com") == alice)

            let sameUID = Self.account("alice", email: "other@example.com")
            await expectStoreError(.alreadyExists) { try await store.create(sameUID) }
            #expect(try await store.account(id: alice.id) == alice)
            #expect(try await store.account(email: "other@example.com") == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func updateAddsAndRemovesIdentities(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(
                Self.account("alice", identities: [Self.identity("google", "g-1"), Self.identity("apple", "a-1", at: 1)]))

            let kakao = Self.identity("kakao", "12345", at: 2, email: "alice@kakao.example")
            let updated = try await store.update(id: AccountID("alice")) { account in
                account.identities.removeAll { $0.provider == ProviderID("apple") }
                account.identities.append(kakao)
                account.displayName = "Alice K"
            }

            #expect(updated.identities == [Self.identity("google", "g-1"), kakao])
            #expect(updated.displayName == "Alice K")
            #expect(try await store.account(id: AccountID("alice")) == updated)
            #expect(try await store.account(provider: ProviderID("apple"), subject: "a-1") == nil)
            #expect(try await store.account(provider: ProviderID("kakao"), subject: "12345") == updated)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-1") == updated)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func updateChangesEmailAndFreesTheOldOne(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("alice", email: "old@example.com"))
            let updated = try await store.update(id: AccountID("alice")) { $0.email = "New@Example.com" }

            #expect(try await store.account(email: "new@example.com") == updated)
            #expect(try await store.account(email: "old@example.com") == nil)
            // The freed email can be taken by someone else; the held one cannot.
            try await store.create(Self.account("bob", email: "OLD@example.com"))
            await expectStoreError(.alreadyExists) {
                _ = try await store.update(id: AccountID("bob")) { $0.email = "NEW@EXAMPLE.COM" }
            }
            #expect(try await store.account(email: "new@example.com")?.id == AccountID("alice"))
            #expect(try await store.account(id: AccountID("bob"))?.email == "OLD@example.com")
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func updateLinkingAnIdentityOfAnotherAccountChangesNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", identities: [Self.identity("google", "g-1")])
            let bob = Self.account("bob", identities: [Self.identity("apple", "a-2")], name: "Bob")
            try await store.create(alice)
            try await store.create(bob)

            await expectStoreError(.alreadyExists) {
                _ = try await store.update(id: bob.id) { account in
                    account.displayName = "Bob the linker"
                    account.identities.removeAll()
                    account.identities.append(Self.identity("google", "g-1", at: 9))
                }
            }

            #expect(try await store.account(id: bob.id) == bob)
            #expect(try await store.account(id: alice.id) == alice)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-1") == alice)
            #expect(try await store.account(provider: ProviderID("apple"), subject: "a-2") == bob)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func updateReturnsTheAccountAsALoadReadsIt(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", email: "alice@example.com", identities: [Self.identity("google", "g-1", at: 7)])
            try await store.create(alice)
            let subMillisecond = Date(timeIntervalSince1970: 1_800_000_000.123_456_7)
            let returned = try await store.update(id: alice.id, options: AccountWriteOptions(revokeSessions: true)) {
                account in
                account.lastSignInAt = subMillisecond
                // Linked in the same millisecond, listed out of order.
                account.identities.append(Self.identity("kakao", "k-1", at: 3))
                account.identities.append(Self.identity("apple", "a-1", at: 3))
            }
            let loaded = try await store.account(id: alice.id)
            #expect(returned == loaded)
            #expect(returned.identities.map(\.subject) == ["a-1", "k-1", "g-1"])
            #expect(returned.lastSignInAt == date(ms: 1_800_000_000_123))
            #expect(returned.tokensValidAfter != nil)
            #expect(returned.email == "alice@example.com")

            // A change of one column leaves the others as they were.
            let signedIn = try await store.update(id: alice.id) { $0.lastSignInAt = date(ms: Self.t0 + 9) }
            #expect(signedIn == (try await store.account(id: alice.id)))
            #expect(try await store.account(email: "ALICE@example.com")?.id == alice.id)
            #expect(signedIn.tokensValidAfter == returned.tokensValidAfter)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func updateOfTheAccountLinkedToAnIdentity(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", email: "alice@example.com", identities: [Self.identity("google", "g-1")])
            try await store.create(alice)
            let mark = SingleUseMark(key: "mark", expiresAt: fixture.clock.now + 600)
            let grant = SessionGrant(
                tokenHash: "t-1", sessionID: "s-1", signInProvider: "google", createdAt: date(ms: Self.t0),
                expiresAt: date(ms: Self.t0 + 86_400_000))
            let event = AuditEvent(
                time: date(ms: Self.t0), uid: nil, action: .signIn, provider: "google", actor: .user, requestID: "r-1",
                id: "e-1")
            let options = AccountWriteOptions(consuming: mark, issuing: grant, recording: [event])

            // Linked to no account: nil, and nothing written (the mark is still unused, no session, no event).
            let none = try await store.update(linkedTo: ProviderID("google"), subject: "g-2", options: options) {
                $0.displayName = "nobody"
            }
            #expect(none == nil)
            #expect(try await store.refreshToken(hash: "t-1") == nil)
            #expect(try await store.auditEvents(uid: nil, before: nil, limit: 10).isEmpty)

            let signedIn = try await store.update(linkedTo: ProviderID("google"), subject: "g-1", options: options) {
                $0.lastSignInAt = date(ms: Self.t0 + 5)
            }
            #expect(signedIn?.id == alice.id)
            #expect(signedIn == (try await store.account(id: alice.id)))
            #expect(signedIn?.lastSignInAt == date(ms: Self.t0 + 5))
            #expect(try await store.refreshToken(hash: "t-1")?.accountID == alice.id)
            // The event without a uid was given the account's.
            #expect(try await store.auditEvents(uid: alice.id, before: nil, limit: 10).map(\.id) == ["e-1"])
            await expectStoreError(.alreadyUsed) {
                _ = try await store.update(linkedTo: ProviderID("google"), subject: "g-1", options: AccountWriteOptions(consuming: mark)) {
                    $0.displayName = "replayed"
                }
            }
            #expect(try await store.account(id: alice.id)?.displayName == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func updateWhoseBodyThrowsChangesNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", email: "alice@example.com", identities: [Self.identity("google", "g-1")])
            try await store.create(alice)
            let mark = SingleUseMark(key: "nonce-1", expiresAt: fixture.clock.now + 600)
            try await store.insertRefreshToken(Self.token("t-1", session: "s-1", uid: "alice"))

            await #expect(throws: BodyFailure.self) {
                _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark, revokeSessions: true)) {
                    account in
                    account.displayName = "changed"
                    account.email = "changed@example.com"
                    account.identities.append(Self.identity("apple", "a-1", at: 1))
                    throw BodyFailure()
                }
            }

            #expect(try await store.account(id: alice.id) == alice)
            #expect(try await store.account(provider: ProviderID("apple"), subject: "a-1") == nil)
            #expect(try await store.account(email: "changed@example.com") == nil)
            #expect(try await store.refreshToken(hash: "t-1")?.revokedAt == nil)
            // The mark was not consumed: it still can be, once.
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark)) { _ in }
            await expectStoreError(.alreadyUsed) {
                _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark)) { _ in }
            }
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func updateOfMissingAccountOrChangingTheUIDIsRefused(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            await expectStoreError(.notFound) { _ = try await store.update(id: AccountID("ghost")) { _ in } }
            #expect(try await store.account(id: AccountID("ghost")) == nil)

            let alice = Self.account("alice")
            try await store.create(alice)
            await expectStoreError(.notFound) {
                _ = try await store.update(id: alice.id) { account in
                    account.id = AccountID("mallory")
                    account.displayName = "Mallory"
                }
            }
            #expect(try await store.account(id: alice.id) == alice)
            #expect(try await store.account(id: AccountID("mallory")) == nil)
        }
    }

    // MARK: - Single-use marks

    @Test(arguments: StoreBackend.enabled)
    func aDeletionConsumesItsMarkAndAMarkCanBeRecordedAlone(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let mark = SingleUseMark(key: "webhook-jti", expiresAt: fixture.clock.now + 600)
            let alice = Self.account("alice", identities: [Self.identity("apple", "a-1")])
            let bob = Self.account("bob", identities: [Self.identity("apple", "b-1")])
            try await store.create(alice)
            try await store.create(bob)
            try await store.delete(id: alice.id, options: AccountWriteOptions(consuming: mark))
            #expect(try await store.account(id: alice.id) == nil)
            // The mark is taken: a second deletion with it deletes nothing.
            await expectStoreError(.alreadyUsed) {
                try await store.delete(id: bob.id, options: AccountWriteOptions(consuming: mark))
            }
            #expect(try await store.account(id: bob.id) == bob)
            await expectStoreError(.alreadyUsed) { try await store.consume(mark) }

            let alone = SingleUseMark(key: "webhook-jti-2", expiresAt: fixture.clock.now + 600)
            try await store.consume(alone)
            await expectStoreError(.alreadyUsed) { try await store.consume(alone) }
            await expectStoreError(.alreadyUsed) {
                _ = try await store.update(id: bob.id, options: AccountWriteOptions(consuming: alone)) { $0.displayName = "B" }
            }
            #expect(try await store.account(id: bob.id) == bob)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func singleUseMarkIsConsumedOnce(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let mark = SingleUseMark(key: "apple-token-hash", expiresAt: fixture.clock.now + 600)
            let alice = Self.account("alice", identities: [Self.identity("apple", "a-1")])
            try await store.create(alice, options: AccountWriteOptions(consuming: mark))

            await expectStoreError(.alreadyUsed) {
                _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark)) {
                    $0.lastSignInAt = date(ms: Self.t0 + 1000)
                }
            }
            #expect(try await store.account(id: alice.id) == alice)

            let bob = Self.account("bob", identities: [Self.identity("apple", "a-2")])
            await expectStoreError(.alreadyUsed) {
                try await store.create(bob, options: AccountWriteOptions(consuming: mark))
            }
            #expect(try await store.account(id: bob.id) == nil)
            #expect(try await store.account(provider: ProviderID("apple"), subject: "a-2") == nil)

            // Another mark is independent.
            let other = SingleUseMark(key: "another-hash", expiresAt: fixture.clock.now + 600)
            let signedIn = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: other)) {
                $0.lastSignInAt = date(ms: Self.t0 + 2000)
            }
            #expect(signedIn.lastSignInAt == date(ms: Self.t0 + 2000))
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func expiredMarkCanBeConsumedAgain(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice")
            try await store.create(alice)
            let mark = SingleUseMark(key: "short-lived", expiresAt: fixture.clock.now + 60)
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark)) { _ in }

            fixture.clock.advance(by: 30)
            await expectStoreError(.alreadyUsed) {
                _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark)) {
                    $0.displayName = "too early"
                }
            }
            #expect(try await store.account(id: alice.id)?.displayName == nil)

            fixture.clock.advance(by: 60)
            let updated = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: mark)) {
                $0.displayName = "after expiry"
            }
            #expect(updated.displayName == "after expiry")
            #expect(try await store.account(id: alice.id)?.displayName == "after expiry")
        }
    }

    // MARK: - Sessions through account changes

    @Test(arguments: StoreBackend.enabled)
    func revokeSessionsOptionRevokesEveryTokenOfTheAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.create(Self.account("alice"))
            try await store.create(Self.account("bob"))
            try await store.insertRefreshToken(Self.token("a-1", session: "s-a1", uid: "alice"))
            try await store.insertRefreshToken(Self.token("a-2", session: "s-a2", uid: "alice"))
            try await store.insertRefreshToken(Self.token("b-1", session: "s-b1", uid: "bob"))
            let earlier = date(ms: Self.t0 + 5)
            try await store.revokeSession(id: "s-a2", at: earlier)

            fixture.clock.advance(by: 10)
            _ = try await store.update(id: AccountID("alice"), options: AccountWriteOptions(revokeSessions: true)) {
                $0.password = nil
            }

            #expect(try await store.refreshToken(hash: "a-1")?.revokedAt == fixture.clock.now)
            #expect(try await store.refreshToken(hash: "a-2")?.revokedAt == earlier)
            #expect(try await store.refreshToken(hash: "b-1")?.revokedAt == nil)
            let successor = Self.token("a-1-next", session: "s-a1", uid: "alice")
            #expect(try await store.rotateRefreshToken(hash: "a-1", at: fixture.clock.now, successor: successor) == false)
            #expect(try await store.refreshToken(hash: "a-1-next") == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func deleteRemovesIdentitiesAndSessions(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let alice = Self.account("alice", email: "alice@example.com", identities: [Self.identity("google", "g-1")])
            let bob = Self.account("bob", identities: [Self.identity("apple", "a-1")])
            try await store.create(alice)
            try await store.create(bob)
            try await store.insertRefreshToken(Self.token("a-1", session: "s-a", uid: "alice"))
            try await store.insertRefreshToken(Self.token("b-1", session: "s-b", uid: "bob"))

            try await store.delete(id: alice.id)

            #expect(try await store.account(id: alice.id) == nil)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-1") == nil)
            #expect(try await store.account(email: "alice@example.com") == nil)
            #expect(try await store.refreshToken(hash: "a-1") == nil)
            #expect(try await store.account(id: bob.id) == bob)
            #expect(try await store.refreshToken(hash: "b-1") != nil)
            await expectStoreError(.notFound) { try await store.delete(id: alice.id) }
            // Identity and email are free again.
            let newcomer = Self.account("carol", email: "ALICE@example.com", identities: [Self.identity("google", "g-1")])
            try await store.create(newcomer)
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-1") == newcomer)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func concurrentCreatesSharingAnIdentityCreateExactlyOneAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let outcomes = await withTaskGroup(of: (AccountID, Result<Void, any Error>).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let account = Self.account("racer-\(index)", identities: [Self.identity("google", "shared")])
                        do {
                            try await store.create(account)
                            return (account.id, .success(()))
                        } catch {
                            return (account.id, .failure(error))
                        }
                    }
                }
                var outcomes: [(AccountID, Result<Void, any Error>)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }

            let winners = outcomes.filter { if case .success = $0.1 { true } else { false } }.map(\.0)
            try #require(winners.count == 1)
            for (_, result) in outcomes {
                if case .failure(let error) = result {
                    #expect((error as? AccountStoreError)?.code == .alreadyExists, "\(error)")
                }
            }
            #expect(try await store.account(provider: ProviderID("google"), subject: "shared")?.id == winners[0])
            for (id, _) in outcomes where id != winners[0] {
                #expect(try await store.account(id: id) == nil)
            }
        }
    }

    // MARK: - Refresh tokens

    @Test(arguments: StoreBackend.enabled)
    func refreshTokenRoundTripsAndDuplicateHashIsRefused(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            var record = Self.token("t-1", session: "s-1", uid: "alice", createdAt: Self.t0 + 7)
            record.signInProvider = "apple"
            try await store.insertRefreshToken(record)
            #expect(try await store.refreshToken(hash: "t-1") == record)
            #expect(try await store.refreshToken(hash: "t-2") == nil)

            var duplicate = Self.token("t-1", session: "s-2", uid: "bob")
            duplicate.signInProvider = "google"
            await expectStoreError(.alreadyExists) { try await store.insertRefreshToken(duplicate) }
            #expect(try await store.refreshToken(hash: "t-1") == record)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func concurrentRotationsOfOneTokenLetExactlyOneThrough(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.insertRefreshToken(Self.token("t-0", session: "s-1", uid: "alice"))
            let rotatedAt = date(ms: Self.t0 + 1000)

            let results = try await concurrently(20) { index in
                let successor = Self.token("t-0-next-\(index)", session: "s-1", uid: "alice", createdAt: Self.t0 + 1000)
                return try await store.rotateRefreshToken(hash: "t-0", at: rotatedAt, successor: successor)
            }

            let winners = results.indices.filter { results[$0] }
            try #require(winners.count == 1)
            #expect(try await store.refreshToken(hash: "t-0")?.rotatedAt == rotatedAt)
            for index in 0..<20 {
                let stored = try await store.refreshToken(hash: "t-0-next-\(index)")
                #expect((stored != nil) == (index == winners[0]), "successor \(index)")
            }
            // A rotated token cannot be rotated again.
            let late = Self.token("t-late", session: "s-1", uid: "alice")
            #expect(try await store.rotateRefreshToken(hash: "t-0", at: rotatedAt, successor: late) == false)
            #expect(try await store.refreshToken(hash: "t-late") == nil)
            // Nor can a token that does not exist.
            #expect(try await store.rotateRefreshToken(hash: "t-unknown", at: rotatedAt, successor: late) == false)
            #expect(try await store.refreshToken(hash: "t-late") == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func addToSessionStopsOnceTheSessionIsRevoked(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.insertRefreshToken(Self.token("t-0", session: "s-1", uid: "alice"))
            try await store.insertRefreshToken(Self.token("o-0", session: "s-other", uid: "alice"))
            #expect(
                try await store.rotateRefreshToken(
                    hash: "t-0", at: date(ms: Self.t0 + 1), successor: Self.token("t-1", session: "s-1", uid: "alice")))
            #expect(try await store.addToSession(Self.token("t-retry", session: "s-1", uid: "alice")))
            #expect(try await store.refreshToken(hash: "t-retry") != nil)

            let revokedAt = date(ms: Self.t0 + 2)
            try await store.revokeSession(id: "s-1", at: revokedAt)
            for hash in ["t-0", "t-1", "t-retry"] {
                #expect(try await store.refreshToken(hash: hash)?.revokedAt == revokedAt, "\(hash)")
            }
            #expect(try await store.refreshToken(hash: "o-0")?.revokedAt == nil)

            #expect(try await store.addToSession(Self.token("t-retry-2", session: "s-1", uid: "alice")) == false)
            #expect(try await store.refreshToken(hash: "t-retry-2") == nil)
            #expect(
                try await store.rotateRefreshToken(
                    hash: "t-retry", at: revokedAt, successor: Self.token("t-2", session: "s-1", uid: "alice")) == false)
            #expect(try await store.refreshToken(hash: "t-2") == nil)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func revokeSessionsOfAnAccount(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            try await store.insertRefreshToken(Self.token("a-1", session: "s-a1", uid: "alice"))
            try await store.insertRefreshToken(Self.token("a-2", session: "s-a2", uid: "alice"))
            try await store.insertRefreshToken(Self.token("b-1", session: "s-b1", uid: "bob"))

            let revokedAt = date(ms: Self.t0 + 42)
            try await store.revokeSessions(accountID: AccountID("alice"), at: revokedAt)

            #expect(try await store.refreshToken(hash: "a-1")?.revokedAt == revokedAt)
            #expect(try await store.refreshToken(hash: "a-2")?.revokedAt == revokedAt)
            #expect(try await store.refreshToken(hash: "b-1")?.revokedAt == nil)
            #expect(try await store.addToSession(Self.token("a-1-retry", session: "s-a1", uid: "alice")) == false)
            #expect(try await store.addToSession(Self.token("b-1-retry", session: "s-b1", uid: "bob")))
        }
    }

    // MARK: - Signing keys

    @Test(arguments: StoreBackend.enabled)
    func signingKeysAreListedOldestFirstAndRetired(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let newer = StoredSigningKey(
                id: "k-2", algorithm: "ES256", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nB\n-----END PRIVATE KEY-----\n",
                createdAt: date(ms: Self.t0 + 1000))
            let older = StoredSigningKey(
                id: "k-1", algorithm: "RS256", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nA\n-----END PRIVATE KEY-----\n",
                createdAt: date(ms: Self.t0))
            #expect(try await store.signingKeys().isEmpty)
            try await store.insertSigningKey(newer)
            try await store.insertSigningKey(older)
            #expect(try await store.signingKeys() == [older, newer])

            let retiredAt = date(ms: Self.t0 + 5000)
            try await store.retireSigningKey(id: "k-1", at: retiredAt)
            try await store.retireSigningKey(id: "k-1", at: date(ms: Self.t0 + 9000))
            var retired = older
            retired.retiredAt = retiredAt
            #expect(try await store.signingKeys() == [retired, newer])

            await expectStoreError(.alreadyExists) { try await store.insertSigningKey(newer) }
            await expectStoreError(.notFound) { try await store.retireSigningKey(id: "k-unknown", at: retiredAt) }
            #expect(try await store.signingKeys() == [retired, newer])
        }
    }

    // MARK: - Values

    @Test(arguments: StoreBackend.enabled)
    func everyFieldAndDateRoundTripsAtMillisecondPrecision(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let account = Account(
                id: AccountID("Zx9fQ2lK0pR7tY4uW1eA3sD6gH8j"), email: "Ünïcødé+tag@Example.com", emailVerified: true,
                displayName: "Zoë 👩‍💻", photoURL: "https://example.com/p.png?a=1&b=2", disabled: true,
                createdAt: date(ms: 1_754_000_000_001), lastSignInAt: date(ms: 1_754_000_123_999),
                identities: [
                    Identity(provider: ProviderID("kakao"), subject: "4012345678", email: nil, linkedAt: date(ms: 1_754_000_000_007)),
                    Identity(provider: ProviderID("google"), subject: "1093", email: "z@example.com", linkedAt: date(ms: 1_754_000_000_999)),
                ],
                password: PasswordCredential(hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", isDerived: true),
                customClaims: #"{"role":"admin","n":1}"#)
            try await store.create(account)
            #expect(try await store.account(id: account.id) == account)
            #expect(try await store.account(email: "ünïcødé+tag@example.com") == account)

            // Who disabled it (a provider's "the user left" event) is kept, and cleared with it.
            let byProvider = try await store.update(id: account.id) { $0.disabledBy = ProviderID("kakao") }
            #expect(byProvider.disabledBy == ProviderID("kakao"))
            #expect(try await store.account(id: account.id) == byProvider)
            let cleared = try await store.update(id: account.id) { $0.disabledBy = nil }
            #expect(try await store.account(id: account.id)?.disabledBy == nil)
            #expect(try await store.account(id: account.id) == cleared)

            let empty = Account(id: AccountID("empty-strings"), email: nil, displayName: "", photoURL: "", createdAt: date(ms: 0))
            try await store.create(empty)
            #expect(try await store.account(id: empty.id) == empty)

            let record = RefreshTokenRecord(
                tokenHash: "h", sessionID: "s", accountID: account.id, signInProvider: "password",
                createdAt: date(ms: 1_754_000_000_001), expiresAt: date(ms: 1_756_592_000_001),
                rotatedAt: date(ms: 1_754_000_000_002), revokedAt: date(ms: 1_754_000_000_003))
            try await store.insertRefreshToken(record)
            #expect(try await store.refreshToken(hash: "h") == record)
        }
    }

    // MARK: - Failed password sign-ins

    @Test(arguments: StoreBackend.enabled)
    func loginAttemptsAreReservedPerEmailUpToALimitWithinAWindow(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            for offset in [0, 1000, 2000] as [Int64] {
                let locked = try await store.reserveLoginAttempt(
                    emailKey: "a@x.com", at: date(ms: Self.t0 + offset), window: 60, limit: 3)
                #expect(locked == nil)
            }
            // The fourth within the window is refused, recorded nothing, and says when the oldest leaves.
            let refused = try await store.reserveLoginAttempt(emailKey: "a@x.com", at: date(ms: Self.t0 + 3000), window: 60, limit: 3)
            #expect(refused == date(ms: Self.t0 + 60_000))
            #expect(try await store.loginFailures(emailKey: "a@x.com", since: date(ms: 0)).count == 3)
            // Other emails are independent.
            #expect(try await store.reserveLoginAttempt(emailKey: "b@x.com", at: date(ms: Self.t0 + 3000), window: 60, limit: 3) == nil)
            // Once the oldest has left the window, one more is allowed, and the old one is purged.
            #expect(try await store.reserveLoginAttempt(emailKey: "a@x.com", at: date(ms: Self.t0 + 60_500), window: 60, limit: 3) == nil)
            #expect(try await store.loginFailures(emailKey: "a@x.com", since: date(ms: 0)) ==
                [date(ms: Self.t0 + 1000), date(ms: Self.t0 + 2000), date(ms: Self.t0 + 60_500)])
            // Releasing one attempt leaves the others.
            try await store.releaseLoginAttempt(emailKey: "a@x.com", at: date(ms: Self.t0 + 2000))
            #expect(try await store.loginFailures(emailKey: "a@x.com", since: date(ms: 0)) ==
                [date(ms: Self.t0 + 1000), date(ms: Self.t0 + 60_500)])
            try await store.clearLoginFailures(emailKey: "a@x.com")
            #expect(try await store.loginFailures(emailKey: "a@x.com", since: date(ms: 0)) == [])
            #expect(try await store.loginFailures(emailKey: "b@x.com", since: date(ms: 0)).count == 1)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func concurrentReservationsNeverExceedTheLimit(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let granted = try await concurrently(30) { index in
                try await store.reserveLoginAttempt(
                    emailKey: "race@x.com", at: date(ms: Self.t0 + Int64(index)), window: 900, limit: 10) == nil
            }.filter { $0 }.count
            #expect(granted == 10)
        }
    }

    // MARK: - Admin listings and the audit log

    @Test(arguments: StoreBackend.enabled)
    func listingsFollowCreationOrderFiltersAndCursors(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            var created: [Account] = []
            for index in 0..<5 {
                var account = Self.account("u\(index)", email: "U\(index)@example.com", identities: [Self.identity(index % 2 == 0 ? "google" : "kakao", "s\(index)")])
                account.createdAt = date(ms: Self.t0 + Int64(index / 2))  // ties on createdAt are broken by uid
                if index == 4 { account.password = .chosen("$argon2id$x") }
                try await store.create(account)
                created.append(account)
            }
            let all = try await store.listAccounts(filter: AccountFilter(), after: nil, limit: 10)
            #expect(all.map(\.id.rawValue) == ["u0", "u1", "u2", "u3", "u4"])
            #expect(all == created)
            let after = PageCursor(millis: Self.t0, id: "u0")
            #expect(try await store.listAccounts(filter: AccountFilter(), after: after, limit: 2).map(\.id.rawValue) == ["u1", "u2"])
            #expect(try await store.listAccounts(filter: AccountFilter(email: "u3@EXAMPLE.com"), after: nil, limit: 10).map(\.id.rawValue) == ["u3"])
            #expect(try await store.listAccounts(filter: AccountFilter(provider: "kakao"), after: nil, limit: 10).map(\.id.rawValue) == ["u1", "u3"])
            #expect(try await store.listAccounts(filter: AccountFilter(provider: "password"), after: nil, limit: 10).map(\.id.rawValue) == ["u4"])
            #expect(try await store.listAccounts(filter: AccountFilter(provider: "apple"), after: nil, limit: 10).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func eventsRecordedWithAChangeCommitWithItOrNotAtAll(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            func event(_ action: String, _ uid: String, _ id: String) -> AuditEvent {
                AuditEvent(
                    time: date(ms: Self.t0), uid: AccountID(uid), action: AuditAction(rawValue: action), provider: "apple", actor: .user,
                    requestID: "r-\(id)", id: id)
            }
            let mark = SingleUseMark(key: "apple-token-hash", expiresAt: fixture.clock.now + 600)
            let alice = Self.account("alice", identities: [Self.identity("apple", "a-1")])
            let created = event("sign_in", "alice", "e-1")
            try await store.create(alice, options: AccountWriteOptions(consuming: mark, recording: [created]))
            let linked = [event("link", "alice", "e-2"), event("sign_in", "alice", "e-3")]
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(recording: linked)) {
                $0.identities.append(Self.identity("google", "g-1", at: 1))
            }
            #expect(try await store.auditEvents(uid: alice.id, before: nil, limit: 10).map(\.id) == ["e-3", "e-2", "e-1"])

            // Refused changes record nothing: a replayed mark, a body that throws, a taken identity.
            await expectStoreError(.alreadyUsed) {
                _ = try await store.update(
                    id: alice.id, options: AccountWriteOptions(consuming: mark, recording: [event("sign_in", "alice", "e-4")])
                ) { _ in }
            }
            await #expect(throws: BodyFailure.self) {
                _ = try await store.update(id: alice.id, options: AccountWriteOptions(recording: [event("x", "alice", "e-5")])) {
                    _ in throw BodyFailure()
                }
            }
            let bob = Self.account("bob", identities: [Self.identity("google", "g-1")])
            await expectStoreError(.alreadyExists) {
                try await store.create(bob, options: AccountWriteOptions(recording: [event("sign_in", "bob", "e-6")]))
            }
            #expect(try await store.auditEvents(uid: nil, before: nil, limit: 10).map(\.id) == ["e-3", "e-2", "e-1"])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func auditEventsComeNewestFirstByAccountWithCursors(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            var events: [AuditEvent] = []
            for index in 0..<6 {
                let event = AuditEvent(
                    time: date(ms: Self.t0 + Int64(index / 2)), uid: index == 5 ? nil : AccountID(index % 2 == 0 ? "a" : "b"),
                    action: .signIn, provider: "google", actor: .user, outcome: index == 5 ? "INVALID_TOKEN" : "success",
                    requestID: "r\(index)", id: "id-\(index)")
                try await store.appendAuditEvent(event)
                events.append(event)
            }
            let newest = try await store.auditEvents(uid: nil, before: nil, limit: 10)
            #expect(newest == events.reversed())
            #expect(try await store.auditEvents(uid: AccountID("a"), before: nil, limit: 10).map(\.id) == ["id-4", "id-2", "id-0"])
            let cursor = PageCursor(millis: Self.t0 + 2, id: "id-4")
            #expect(try await store.auditEvents(uid: nil, before: cursor, limit: 2).map(\.id) == ["id-3", "id-2"])
            #expect(newest.first?.uid == nil)
            #expect(newest.first?.outcome == "INVALID_TOKEN")
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func rotatingASigningKeyRetiresEveryActiveKeyAtOnce(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            for kid: KeyID in ["k1", "k2"] {
                try await store.insertSigningKey(
                    StoredSigningKey(id: kid, algorithm: "ES256", privateKeyPEM: "pem-\(kid)", createdAt: date(ms: Self.t0)))
            }
            let next = StoredSigningKey(id: "k3", algorithm: "ES256", privateKeyPEM: "pem-k3", createdAt: date(ms: Self.t0 + 5))
            try await store.rotateSigningKey(to: next, at: date(ms: Self.t0 + 5))
            let keys = try await store.signingKeys()
            #expect(keys.filter { $0.retiredAt == nil }.map(\.id) == ["k3"])
            #expect(keys.filter { $0.retiredAt == date(ms: Self.t0 + 5) }.map(\.id) == ["k1", "k2"])
            // A kid used before is refused and nothing changes.
            await expectStoreError(.alreadyExists) { try await store.rotateSigningKey(to: next, at: date(ms: Self.t0 + 9)) }
            #expect(try await store.signingKeys() == keys)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func concurrentFirstKeysLeaveExactlyOneActiveKey(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let stored = try await concurrently(8) { index in
                try await store.insertFirstSigningKey(
                    StoredSigningKey(id: KeyID("k\(index)"), algorithm: "ES256", privateKeyPEM: "pem", createdAt: date(ms: Self.t0)))
            }
            #expect(stored.filter { $0 }.count == 1)
            let keys = try await store.signingKeys()
            #expect(keys.count == 1)
            #expect(keys.first?.retiredAt == nil)
            // With an active key, nothing more is stored; once it is retired, a first key is again.
            let another = StoredSigningKey(id: "late", algorithm: "ES256", privateKeyPEM: "pem", createdAt: date(ms: Self.t0 + 1))
            #expect(try await store.insertFirstSigningKey(another) == false)
            try await store.retireSigningKey(id: try #require(keys.first?.id), at: date(ms: Self.t0 + 2))
            #expect(try await store.insertFirstSigningKey(another) == true)
            #expect(try await store.signingKeys().filter { $0.retiredAt == nil }.map(\.id) == ["late"])
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func purgingDeletesOnlyWhatHasExpired(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let now = fixture.clock.now
            let alice = Self.account("alice")
            let old = SingleUseMark(key: "old", expiresAt: now + 10)
            let new = SingleUseMark(key: "new", expiresAt: now + 5000)
            try await store.create(alice, options: AccountWriteOptions(consuming: old))
            _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: new)) { _ in }
            try await store.insertRefreshToken(Self.token("expired", session: "s1", uid: "alice", createdAt: Self.t0 - 31 * 86_400_000))
            try await store.insertRefreshToken(
                RefreshTokenRecord(
                    tokenHash: "live", sessionID: "s2", accountID: alice.id, signInProvider: "google", createdAt: now,
                    expiresAt: now + 86_400))
            let purged = try await store.purgeExpired(before: now + 100)
            #expect(purged == 2)  // the expired token and the old mark
            #expect(try await store.refreshToken(hash: "expired") == nil)
            #expect(try await store.refreshToken(hash: "live") != nil)
            // The live mark still refuses a replay.
            await expectStoreError(.alreadyUsed) {
                _ = try await store.update(id: alice.id, options: AccountWriteOptions(consuming: new)) { _ in }
            }
        }
    }

    /// The listener a session was made on survives every way a refresh token is stored (schema version 11).
    @Test(arguments: StoreBackend.enabled)
    func aSessionKeepsTheListenerItWasMadeOn(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let now = fixture.clock.now
            let grant = SessionGrant(
                tokenHash: "fb-1", sessionID: "s-fb", signInProvider: "google.com", createdAt: now, expiresAt: now + 600,
                surface: .firebase, claims: #"{"role":"admin"}"#)
            try await store.create(Self.account("alice"), options: AccountWriteOptions(issuing: grant))
            try await store.insertRefreshToken(Self.token("native-1", session: "s-native", uid: "alice"))
            #expect(try await store.refreshToken(hash: "fb-1")?.surface == .firebase)
            #expect(try await store.refreshToken(hash: "fb-1")?.signInProvider == "google.com")
            #expect(try await store.refreshToken(hash: "fb-1")?.claims == #"{"role":"admin"}"#)
            #expect(try await store.refreshToken(hash: "native-1")?.surface == .native)
            #expect(try await store.refreshToken(hash: "native-1")?.claims == nil)

            var successor = grant.record(for: AccountID("alice"))
            successor.tokenHash = "fb-2"
            #expect(try await store.rotateRefreshToken(hash: "fb-1", at: now, successor: successor))
            successor.tokenHash = "fb-3"
            #expect(try await store.addToSession(successor))
            #expect(try await store.refreshToken(hash: "fb-2")?.surface == .firebase)
            #expect(try await store.refreshToken(hash: "fb-3")?.surface == .firebase)
            #expect(try await store.refreshToken(hash: "fb-3")?.claims == #"{"role":"admin"}"#)
        }
    }
}
