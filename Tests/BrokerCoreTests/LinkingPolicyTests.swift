@testable import BrokerCore
@testable import BrokerIdentity
@testable import BrokerModel
@testable import BrokerStorage
import Foundation
import Testing

@Suite struct LinkingPolicyTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func account(_ uid: String, email: String?, verified: Bool, providers: [String] = [], password: Bool = false)
        -> Account
    {
        Account(
            id: AccountID(uid), email: email, emailVerified: verified, createdAt: now,
            identities: providers.map { Identity(provider: ProviderID($0), subject: "s-\($0)", email: email, linkedAt: now) },
            password: password ? .chosen("$argon2id$stub") : nil)
    }

    static func identity(email: String?, verified: Bool) -> ExternalIdentity {
        ExternalIdentity(provider: ProviderID("google"), subject: "g1", email: email, emailVerified: verified)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var identity: ExternalIdentity
        var linked: Account?
        var owner: Account?
        var byEmail: Bool
        var expected: LinkingDecision
        var testDescription: String { name }
    }

    static let verifiedOwner = account("owner", email: "a@example.com", verified: true, providers: ["apple"])
    static let unverifiedOwner = account("pw", email: "a@example.com", verified: false, password: true)
    static let linkedAccount = account("linked", email: "other@example.com", verified: true, providers: ["google"])

    static let cases: [Case] = [
        Case(
            name: "linked identity signs in", identity: identity(email: "a@example.com", verified: true),
            linked: linkedAccount, owner: verifiedOwner, byEmail: false, expected: .signIn(linkedAccount)),
        Case(
            name: "new identity without email creates", identity: identity(email: nil, verified: false), linked: nil,
            owner: nil, byEmail: false, expected: .create(claimEmail: true)),
        Case(
            name: "new identity with a free email creates", identity: identity(email: "a@example.com", verified: true),
            linked: nil, owner: nil, byEmail: false, expected: .create(claimEmail: true)),
        Case(
            name: "verified email of a verified account conflicts",
            identity: identity(email: "a@example.com", verified: true), linked: nil, owner: verifiedOwner,
            byEmail: false, expected: .conflict(verifiedOwner)),
        Case(
            name: "verified email of a verified account links when allowed",
            identity: identity(email: "a@example.com", verified: true), linked: nil, owner: verifiedOwner,
            byEmail: true, expected: .link(verifiedOwner)),
        Case(
            name: "verified email takes over an unverified account",
            identity: identity(email: "a@example.com", verified: true), linked: nil, owner: unverifiedOwner,
            byEmail: false, expected: .takeOver(unverifiedOwner)),
        Case(
            name: "unverified email never links, even when allowed",
            identity: identity(email: "a@example.com", verified: false), linked: nil, owner: verifiedOwner,
            byEmail: true, expected: .create(claimEmail: false)),
        Case(
            name: "unverified email never takes over",
            identity: identity(email: "a@example.com", verified: false), linked: nil, owner: unverifiedOwner,
            byEmail: true, expected: .create(claimEmail: false)),
    ]

    @Test func anEmailOwnerHoldingTheIdentityIsASignIn() {
        // Seen between two look-ups when a concurrent first sign-in wins the race.
        let owner = Self.account("winner", email: "a@example.com", verified: true, providers: ["google"])
        var identity = Self.identity(email: "a@example.com", verified: true)
        identity.subject = "s-google"
        let decision = LinkingPolicy.decide(identity: identity, linked: nil, emailOwner: owner, linkByVerifiedEmail: false)
        #expect(decision == .signIn(owner))
    }

    @Test func aSecondIdentityOfOneProviderIsNeverLinkedByEmail() {
        let owner = Self.account("owner", email: "a@example.com", verified: true, providers: ["google"])
        let decision = LinkingPolicy.decide(
            identity: Self.identity(email: "a@example.com", verified: true), linked: nil, emailOwner: owner,
            linkByVerifiedEmail: true)
        #expect(decision == .conflict(owner))
    }

    @Test(arguments: cases)
    func decides(_ testCase: Case) {
        let decision = LinkingPolicy.decide(
            identity: testCase.identity, linked: testCase.linked, emailOwner: testCase.owner,
            linkByVerifiedEmail: testCase.byEmail)
        #expect(decision == testCase.expected)
    }

    @Test func conflictListsSignInMethods() {
        let owner = Self.account("x", email: "a@example.com", verified: true, providers: ["kakao", "apple"], password: true)
        #expect(LinkingPolicy.signInMethods(of: owner) == ["apple", "kakao", "password"])
    }
}

/// A provider names its own linking rule; the account service carries it out with the strategy registered for it.
@Suite struct LinkingRuleTests {
    /// Records the sign-ins it is asked to map, and creates nothing.
    actor Recording: LinkingStrategy {
        var asked: [String] = []
        nonisolated func signInUnlinked(_ attempt: SignInAttempt, accounts: AccountService) async throws -> SignInOutcome {
            await record(attempt.identity.subject)
            throw AccountError(.emailExists)
        }
        func record(_ subject: String) { asked.append(subject) }
    }

    static func attempt(rule: LinkingRule) -> SignInAttempt {
        SignInAttempt(
            VerifiedIdentity(
                identity: ExternalIdentity(
                    provider: ProviderID("kakao"), subject: "4242", email: "a@example.com", emailVerified: true),
                linking: rule))
    }

    @Test func theRuleIsCarriedOutByItsRegisteredStrategy() async throws {
        let store = MemoryBrokerStore(clock: ManualClock())
        let strategy = Recording()
        let rule = LinkingRule("test.recording")
        let accounts = try await AccountService(
            store: store, clock: ManualClock(), linkByVerifiedEmail: false, passwords: NoPasswords(),
            linkingStrategies: [rule: strategy])
        await #expect(throws: AccountError(.emailExists)) { try await accounts.signIn(Self.attempt(rule: rule)) }
        #expect(await strategy.asked == ["4242"])
        #expect(await store.account(email: "a@example.com") == nil)
    }

    @Test func aRuleWithNoStrategyIsRefusedAndStoresNothing() async throws {
        let store = MemoryBrokerStore(clock: ManualClock())
        let accounts = try await AccountService(
            store: store, clock: ManualClock(), linkByVerifiedEmail: false, passwords: NoPasswords(),
            linkingStrategies: [:])
        let error = await #expect(throws: ProviderError.self) {
            try await accounts.signIn(Self.attempt(rule: .kakaoLegacyPassword))
        }
        #expect(error?.code == .misconfigured)
        #expect(await store.account(email: "a@example.com") == nil)
        #expect(await store.account(provider: ProviderID("kakao"), subject: "4242") == nil)
    }

    @Test func kakaosRuleIsBuiltIn() {
        #expect(LinkingRule.builtInStrategies[.kakaoLegacyPassword] is KakaoLegacyPasswordLinking)
    }
}

/// Passwords play no part in these tests.
private struct NoPasswords: PasswordHashing {
    func hash(_ password: String) async throws -> String { "unused" }
    func verify(_ password: String, against encoded: String) async throws -> Bool { false }
}
