import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A link answered with a new session (the Firebase listener's `signInWithIdp` with an `idToken`) is one write: the
/// identity, its `link` event and the session commit together, or nothing does.
@Suite struct LinkCommitTests {
    @Test func aLinkAndItsSessionAreOneCommit() async throws {
        let stubs = try StubProviders()
        let watched = try await WatchedServices.make(
            stubsAt: InProcessBroker.stubsBaseURL, httpClient: stubs.inProcessClient())
        let (services, store, database, clock) = (watched.services, watched.store, watched.database, watched.clock)
        let account = try await services.signIn.signUp(
            email: "owner@example.com", password: "secret-1", displayName: nil, requestID: "r-up"
        ).account
        let user = SignedInUser(
            account: account, claims: ["auth_time": .int(Int64(clock.now.timeIntervalSince1970))])
        func request() throws -> SignInRequest {
            SignInRequest(
                provider: ProviderID("google"),
                credential: .idToken(try stubs.idToken("google", claims: ["sub": "g-owner"]), rawNonce: nil),
                requestID: "r-link")
        }
        func state() async throws -> [Int] {
            let stored = try #require(try await store.account(id: account.id))
            let events = try await store.auditEvents(uid: account.id, before: nil, limit: 100)
            return [
                stored.identities.count,
                try await store.sessionSummary(accountID: account.id, at: clock.now).live,
                events.filter { $0.action == .link && $0.outcome == "success" }.count,
            ]
        }
        let before = try await state()
        #expect(before == [0, 1, 0])

        // The session's insert fails: the identity is not linked either.
        database.failCommits(of: "INSERT INTO refresh_tokens")
        await #expect(throws: AccountStoreError.self) { try await services.signIn.linkRenewing(user, try request()) }
        #expect(try await state() == before)

        database.failCommits(of: nil)
        database.countWrites()
        let linked = try await services.signIn.linkRenewing(user, try request())
        #expect(linked.account.identity(ProviderID("google"))?.subject == "g-owner")
        #expect(try await state() == [1, 2, 1])
        #expect(database.writes == 1)
    }
}
