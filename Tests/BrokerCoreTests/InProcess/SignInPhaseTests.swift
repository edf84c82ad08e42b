import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Synchronization
import Testing

/// The pipeline's optional phases (`design/sign-in-pipeline.md`): with none configured a sign-in reads no decision;
/// a second-factor phase is asked only for an existing account, by a method that is asked, and when it answers a
/// pending sign-in nothing of the sign-in is stored; a hook runs once per sign-in before the commit, knows whether
/// the sign-in creates, and its refusal is counted and audited once with nothing stored, while its claims reach the
/// session's ID tokens. Over the memory store, with stand-ins for the phases the following issues fill.
@Suite struct SignInPhaseTests {
    /// Every decision a phase was given, in order.
    final class Seen: Sendable {
        let decisions = Mutex<[SignInDecision]>([])
        var all: [SignInDecision] { decisions.withLock { $0 } }
        func add(_ decision: SignInDecision) { decisions.withLock { $0.append(decision) } }
    }

    /// Asks every account it is given for a second factor.
    struct AskingEveryAccount: SecondFactorPhase {
        let seen: Seen
        func challenge(
            _ decision: SignInDecision, method: String, context: SignInContext
        ) async throws -> PendingSecondFactor? {
            seen.add(decision)
            let uid = try #require(decision.account?.id)
            return PendingSecondFactor(
                uid: uid, credential: "pending-\(method)",
                factors: [PendingSecondFactor.Factor(id: "f1", type: "totp", displayName: nil)])
        }
    }

    /// Refuses every sign-in, or adds a claim to it.
    struct Hook: SignInHooks {
        let seen: Seen
        let refuses: Bool
        func before(_ decision: SignInDecision, method: String, context: SignInContext) async throws -> SignInAmendment
        {
            seen.add(decision)
            if refuses { throw SignInError(.blockedByHook, "Not in this country.") }
            return SignInAmendment(sessionClaims: ["tier": "gold"])
        }
    }

    static func start(_ phases: SignInPhases) async throws -> InProcessBroker {
        try await InProcessBroker.start(clock: ManualClock(Date()), phases: phases)
    }

    static func googleToken(_ broker: InProcessBroker, _ subject: String) throws -> String {
        try broker.stubs.idToken(
            "google", claims: ["sub": .string(subject), "email": .string(subject + "@example.com")])
    }

    static func signInWithGoogle(_ broker: InProcessBroker, _ subject: String) async throws -> SignInResult {
        try await broker.services.signIn.signIn(
            SignInRequest(
                provider: ProviderID("google"), credential: .idToken(try googleToken(broker, subject), rawNonce: nil),
                requestID: "r-\(subject)"))
    }

    static func liveSessions(_ broker: InProcessBroker, _ uid: AccountID) async -> Int {
        await broker.store.sessionSummary(accountID: uid, at: broker.services.clock.now).live
    }

    static func idTokenClaims(_ result: SignInResult) throws -> [String: JSONValue] {
        let parts = result.tokens.idToken.split(separator: ".")
        let payload = try #require(Base64URL.decode(String(parts[1])))
        return try #require(JSONValue.parse(payload)?.objectValue)
    }

    @Test func aSecondFactorPhaseHoldsAReturningSignInAndStoresNoSession() async throws {
        let seen = Seen()
        let broker = try await Self.start(SignInPhases(secondFactor: AskingEveryAccount(seen: seen)))
        // A sign-up creates the account: no account had a factor, so nothing is asked.
        let created = try await broker.services.signIn.signUp(
            email: "mfa@example.com", password: "secret-1", displayName: nil, requestID: "r1")
        let uid = created.account.id
        let before = await broker.store.account(id: uid)
        #expect(seen.all.isEmpty)
        #expect(await Self.liveSessions(broker, uid) == 1)

        let held = await #expect(throws: SecondFactorRequired.self) {
            _ = try await broker.services.signIn.signIn(email: "mfa@example.com", password: "secret-1", requestID: "r2")
        }
        #expect(
            held?.pending
                == PendingSecondFactor(
                    uid: uid, credential: "pending-password",
                    factors: [PendingSecondFactor.Factor(id: "f1", type: "totp", displayName: nil)]))
        #expect(seen.all.map(\.account?.id) == [uid])
        #expect(seen.all.first?.credential == SignInCredential(provider: "password", email: "mfa@example.com"))
        // Nothing of the held sign-in is stored: no session, no sign-in event, no last sign-in time.
        #expect(await Self.liveSessions(broker, uid) == 1)
        let events = await broker.store.auditEvents(uid: nil, before: nil, limit: 100)
        #expect(events.filter { $0.action == .signIn }.isEmpty)
        #expect(await broker.store.account(id: uid) == before)
        #expect(
            SignInFlowTests.samples(broker, "broker_signins_total")
                == ["{provider=\"password\",outcome=\"MFA_REQUIRED\"}": 1])
    }

    /// A takeover removes the squatter's factors instead of asking for them (contract sections 2 and 14): the
    /// decision says so, and the phase is not asked.
    @Test func aTakeoverIsNotAskedForASecondFactor() async throws {
        let seen = Seen()
        let broker = try await Self.start(SignInPhases(secondFactor: AskingEveryAccount(seen: seen)))
        let squatter = try await broker.services.signIn.signUp(
            email: "g-owner@example.com", password: "secret-1", displayName: nil, requestID: "r1")
        let token = try broker.stubs.idToken(
            "google", claims: ["sub": "g-owner", "email": "g-owner@example.com", "email_verified": true])
        let google = try await broker.services.signIn.provider(ProviderID("google"))
        let decision = try await broker.services.accounts.decide(
            try await google.verify(.idToken(token, rawNonce: nil), hints: .none))
        #expect(decision.change == .tookOver && decision.account?.id == squatter.account.id)
        let result = try await broker.services.signIn.signIn(
            SignInRequest(provider: ProviderID("google"), credential: .idToken(token, rawNonce: nil), requestID: "r2"))
        #expect(result.change == .tookOver && result.account.id == squatter.account.id)
        #expect(seen.all.isEmpty)
    }

    @Test func aCustomTokenIsNotAskedForASecondFactor() async throws {
        let seen = Seen()
        let broker = try await Self.start(SignInPhases(secondFactor: AskingEveryAccount(seen: seen)))
        let uid = AccountID("custom-1")
        try await broker.store.create(Account(id: uid, email: nil, emailVerified: false, createdAt: Date()))
        let result = try await broker.services.signIn.signIn(
            customToken: { CustomTokenProof(uid: uid, issuedAt: Date(), claims: nil) }, requestID: "r",
            surface: .firebase)
        #expect(result.account.id == uid)
        #expect(seen.all.isEmpty)
        #expect(await Self.liveSessions(broker, uid) == 1)
    }

    @Test func aHookSeesWhetherTheSignInCreatesAndItsClaimsReachTheIDToken() async throws {
        let seen = Seen()
        let broker = try await Self.start(SignInPhases(hooks: Hook(seen: seen, refuses: false)))
        let first = try await Self.signInWithGoogle(broker, "g-hook")
        let second = try await Self.signInWithGoogle(broker, "g-hook")
        #expect(seen.all.map(\.creates) == [true, false])
        #expect(seen.all.map(\.account?.id) == [nil, first.account.id])
        #expect(seen.all.first?.credential.subject == "g-hook")
        #expect(try Self.idTokenClaims(first)["tier"] == "gold")
        #expect(try Self.idTokenClaims(second)["tier"] == "gold")
        // The claims are the session's, not the account's.
        #expect(await broker.store.account(id: first.account.id)?.customClaims == nil)
    }

    @Test func aHookRefusalIsCountedAndAuditedOnceAndStoresNothing() async throws {
        let seen = Seen()
        let broker = try await Self.start(SignInPhases(hooks: Hook(seen: seen, refuses: true)))
        let refused = await #expect(throws: SignInError.self) {
            _ = try await Self.signInWithGoogle(broker, "g-denied")
        }
        #expect(refused?.refusal == .blockedByHook(message: "Not in this country."))
        try await SignInFlowTests.expectOne(
            broker, counter: "broker_signins_total", label: "google", outcome: "BLOCKED_BY_HOOK", action: .signIn)
        #expect(await SignInFlowTests.accountCount(broker) == 0)
        #expect(seen.all.count == 1)
    }

    /// With no phase configured the decide phase reads nothing: a method whose decide fails still signs in.
    @Test func withoutPhasesNoDecisionIsRead() async throws {
        struct NoDecision: Error {}
        struct Method: SignInMethod {
            let accounts: AccountService
            var label: String { "custom" }
            func authenticate(_ context: SignInContext) async throws -> AccountID { AccountID("plain-1") }
            func decide(_ proof: AccountID, _ context: SignInContext) async throws -> SignInDecision {
                throw NoDecision()
            }
            func commit(
                _ proof: AccountID, session: SessionGrant, context: SignInContext
            ) async throws -> CommittedSignIn {
                let (account, created) = try await accounts.customTokenSignIn(
                    uid: proof, issuedAt: Date(), session: session, requestID: context.requestID)
                return CommittedSignIn(account: account, change: created ? .created : .none)
            }
        }
        let plain = try await InProcessBroker.start(clock: ManualClock(Date()))
        let step = try await plain.services.signIn.run(
            Method(accounts: plain.services.accounts), SignInContext(requestID: "r"))
        #expect(try step.result.account.id == AccountID("plain-1"))

        let withHooks = try await Self.start(SignInPhases(hooks: Hook(seen: Seen(), refuses: false)))
        await #expect(throws: NoDecision.self) {
            _ = try await withHooks.services.signIn.run(
                Method(accounts: withHooks.services.accounts), SignInContext(requestID: "r"))
        }
        #expect(await SignInFlowTests.accountCount(withHooks) == 0)
    }
}
