import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The pipeline's promise (`design/sign-in-pipeline.md`): for every sign-in method, a refusal is counted once and
/// audited once, with the method's label and the refusal's code, and stores nothing else; a success is counted once
/// with the same label, and its audit event carries it too. Over the memory store.
@Suite struct SignInFlowTests {
    static let owner = ["Authorization": "Bearer owner"]

    static func start() async throws -> InProcessBroker {
        try await InProcessBroker.start(clock: ManualClock(Date()))
    }

    /// Every sample of metric family `name`, as `labels → value`.
    static func samples(_ broker: InProcessBroker, _ name: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for line in broker.services.metrics.exposition().split(separator: "\n") where line.hasPrefix(name + "{") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            found[String(line[line.index(line.startIndex, offsetBy: name.count)..<space])] = value
        }
        return found
    }

    static func accountCount(_ broker: InProcessBroker) async -> Int {
        await broker.store.listAccounts(afterUID: nil, limit: 100).count
    }

    static func events(_ broker: InProcessBroker) async -> [AuditEvent] {
        await broker.store.auditEvents(uid: nil, before: nil, limit: 100)
    }

    /// One count in `counter` (labels `provider` = `label`, `outcome`) and nothing else in it; one audit event,
    /// `action`, with the same label and outcome.
    static func expectOne(
        _ broker: InProcessBroker, counter: String, label: String, outcome: String, action: AuditAction,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(
            samples(broker, counter) == ["{provider=\"\(label)\",outcome=\"\(outcome)\"}": 1],
            sourceLocation: sourceLocation)
        let events = await events(broker)
        #expect(events.count == 1, sourceLocation: sourceLocation)
        #expect(events.first?.action == action, sourceLocation: sourceLocation)
        #expect(events.first?.provider == label, sourceLocation: sourceLocation)
        #expect(events.first?.outcome == outcome, sourceLocation: sourceLocation)
    }

    // MARK: Refusals

    @Test func aRefusedProviderTokenIsCountedAndAuditedOnceAndStoresNothing() async throws {
        let broker = try await Self.start()
        let refused = await broker.post("/v1/signin/google", ["idToken": "not-a-jwt"])
        #expect(refused.errorCode == "INVALID_TOKEN")
        try await Self.expectOne(broker, counter: "broker_signins_total", label: "google", outcome: "INVALID_TOKEN", action: .signIn)
        #expect(await Self.accountCount(broker) == 0)
    }

    @Test func anUnknownProviderIsNeitherCountedNorAudited() async throws {
        let broker = try await Self.start()
        let refused = await broker.post("/v1/signin/nope", ["idToken": "x"])
        #expect(refused.errorCode == "PROVIDER_NOT_ENABLED")
        #expect(Self.samples(broker, "broker_signins_total").isEmpty)
        #expect(await Self.events(broker).isEmpty)
    }

    @Test func aWrongPasswordIsCountedAndAuditedOnce() async throws {
        let broker = try await Self.start()
        let refused = await broker.post("/v1/signin/password", ["email": "nobody@example.com", "password": "secret-1"])
        #expect(refused.errorCode == "INVALID_LOGIN_CREDENTIALS")
        try await Self.expectOne(
            broker, counter: "broker_signins_total", label: "password", outcome: "INVALID_LOGIN_CREDENTIALS", action: .signIn)
        #expect(await Self.accountCount(broker) == 0)
    }

    @Test(arguments: [("12345", "WEAK_PASSWORD"), ("secret-1", "EMAIL_EXISTS")])
    func aRefusedSignUpIsCountedAndAuditedOnce(_ password: String, _ outcome: String) async throws {
        let broker = try await Self.start()
        if outcome == "EMAIL_EXISTS" {
            try await broker.store.create(
                Account(id: AccountID("taken"), email: "a@example.com", emailVerified: false, createdAt: Date()))
        }
        let refused = await broker.post("/v1/signup", ["email": "a@example.com", "password": .string(password)])
        #expect(refused.errorCode == outcome)
        try await Self.expectOne(broker, counter: "broker_signups_total", label: "password", outcome: outcome, action: .signUp)
        #expect(Self.samples(broker, "broker_signins_total").isEmpty)
        #expect(await Self.accountCount(broker) == (outcome == "EMAIL_EXISTS" ? 1 : 0))
    }

    @Test func aRefusedCustomTokenIsCountedAndAuditedOnce() async throws {
        let broker = try await Self.start()
        let refused = await broker.firebasePost(
            FirebaseEndpoints.identityToolkitPath + "/accounts:signInWithCustomToken?key=k", ["token": "not-a-token"])
        #expect(refused.status == 400)
        try await Self.expectOne(
            broker, counter: "broker_signins_total", label: "custom", outcome: "INVALID_CUSTOM_TOKEN", action: .signIn)
        #expect(await Self.accountCount(broker) == 0)
    }

    /// The use case decides that a guest's link is its upgrade (contract section 13), for every surface; a guest's
    /// email-link upgrade with guests off is refused before anything is counted, audited or stored.
    @Test func aGuestsLinkIsItsUpgradeAndNeedsGuestsOn() async throws {
        let broker = try await Self.start()  // anonymous sign-in is off
        let now = broker.services.clock.now
        let guest = Account(
            id: AccountID.generate(), createdAt: now, lastSignInAt: now, origin: .anonymous, isAnonymous: true)
        try await broker.store.create(guest)
        let stored = try #require(await broker.store.account(id: guest.id))
        let user = SignedInUser(account: stored, claims: ["auth_time": .int(Int64(now.timeIntervalSince1970))])
        let error = await #expect(throws: SignInError.self) {
            _ = try await broker.services.signIn.linkOrUpgrade(
                user, emailLinkCode: "bm8tc3VjaC1jb2Rl", email: "a@example.com", requestID: "r", surface: .native)
        }
        #expect(Refusal.refusal(of: try #require(error)) == .providerNotEnabled)
        #expect(Self.samples(broker, "broker_links_total").isEmpty)
        #expect(await Self.events(broker).isEmpty)
        #expect(await broker.store.account(id: guest.id) == stored)

        // A provider's identity upgrades the guest in place, guests off or not (as before this decision moved here;
        // the email-link and password upgrades refuse when guests are off: see the note on issue 48).
        let request = SignInRequest(
            provider: ProviderID("google"),
            credential: .idToken(try broker.stubs.idToken("google", claims: ["sub": "g-guest"]), rawNonce: nil),
            requestID: "r-2")
        switch try await broker.services.signIn.linkOrUpgrade(user, request) {
        case .upgraded(let upgraded):
            #expect(upgraded.account.id == guest.id && !upgraded.account.isAnonymous)
            #expect(upgraded.account.identity(ProviderID("google"))?.subject == "g-guest")
        case .linked: Issue.record("a guest's link was not its upgrade")
        }
    }

    @Test func aRefusedEmailLinkIsCountedAndAuditedOnceAsEmailLink() async throws {
        let broker = try await Self.start()
        await #expect(throws: ActionCodeError.self) {
            _ = try await broker.services.signIn.signIn(
                emailLinkCode: "bm8tc3VjaC1jb2Rl", email: "a@example.com", requestID: "r")
        }
        try await Self.expectOne(
            broker, counter: "broker_signins_total", label: "emailLink", outcome: "INVALID_OOB_CODE", action: .signIn)
        #expect(await Self.accountCount(broker) == 0)
    }

    @Test func aRefusedLinkIsCountedAndAuditedOnce() async throws {
        let broker = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "l@example.com", "password": "secret-1"])
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        let refused = await broker.post(
            "/v1/me/identities/google", ["idToken": "not-a-jwt"],
            headers: ["Authorization": "Bearer " + (session.json?["idToken"]?.stringValue ?? "")])
        #expect(refused.errorCode == "INVALID_TOKEN")
        #expect(Self.samples(broker, "broker_links_total") == ["{provider=\"google\",outcome=\"INVALID_TOKEN\"}": 1])
        let links = await Self.events(broker).filter { $0.action == .link }
        #expect(links.count == 1)
        #expect(links.first?.uid == uid && links.first?.provider == "google" && links.first?.outcome == "INVALID_TOKEN")
        #expect(await broker.store.account(id: uid)?.identities.isEmpty == true)
    }

    // MARK: Successes

    @Test func aSignUpAndEachSignInAreCountedOnceWithTheirLabel() async throws {
        let broker = try await Self.start()
        #expect(await broker.post("/v1/signup", ["email": "s@example.com", "password": "secret-1"]).status == 201)
        try await Self.expectOne(broker, counter: "broker_signups_total", label: "password", outcome: "created", action: .signUp)

        #expect(await broker.post("/v1/signin/password", ["email": "s@example.com", "password": "secret-1"]).status == 200)
        #expect(Self.samples(broker, "broker_signins_total") == ["{provider=\"password\",outcome=\"success\"}": 1])
        let signIns = await Self.events(broker).filter { $0.action == .signIn }
        #expect(signIns.map(\.provider) == ["password"])

        let google = await broker.post(
            "/v1/signin/google",
            ["idToken": .string(try broker.stubs.idToken("google", claims: ["sub": "g-1", "email": "g@example.com"]))])
        #expect(google.status == 201)
        #expect(Self.samples(broker, "broker_signins_total")["{provider=\"google\",outcome=\"created\"}"] == 1)
        #expect(await Self.events(broker).filter { $0.provider == "google" }.map(\.outcome) == ["created"])
    }
}
