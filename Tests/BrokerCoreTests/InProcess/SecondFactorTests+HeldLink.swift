import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A provider sign-in that would link a new identity to an account with a second factor links nothing when it
/// answers `MFA_REQUIRED`: the link is made in the completed second factor's transaction, its premises checked again.
extension SecondFactorTests {
    /// A broker linking by verified email, and an account `email` with a factor whose email is verified.
    static func heldLinkAccount(_ email: String) async throws -> (InProcessBroker, ManualClock, Enrolled) {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(
            linkByVerifiedEmail: true, clock: clock, adminToken: adminToken, cipher: try Self.cipher
        ) { document in
            guard case .object(var members) = document else { return document }
            members["mfa"] = ["totp": ["enabled": true]]
            return .object(members)
        }
        let user = try await Self.enrolled(broker, clock, email)
        _ = try await broker.store.update(id: user.uid, options: AccountWriteOptions()) { $0.emailVerified = true }
        return (broker, clock, user)
    }

    static func googleSignIn(_ broker: InProcessBroker, subject: String, email: String) async throws -> TestResponse {
        let token = try broker.stubs.idToken(
            "google", claims: ["sub": .string(subject), "email": .string(email), "email_verified": true])
        return await broker.post("/v1/signin/google", ["idToken": .string(token)])
    }

    static func finish(
        _ broker: InProcessBroker, _ clock: ManualClock, _ user: Enrolled, credential: String
    ) async throws -> TestResponse {
        await broker.post(
            "/v1/signin/mfa",
            [
                "mfaPendingCredential": .string(credential), "factorId": .string(user.factorID),
                "code": .string(try Self.code(user.secret, clock)),
            ])
    }

    @Test func aHeldLinkIsMadeOnlyWhenTheSecondFactorCompletes() async throws {
        let (broker, clock, user) = try await Self.heldLinkAccount("linked@example.com")
        let sessions = await Self.liveSessions(broker, user.uid)
        let held = try await Self.googleSignIn(broker, subject: "g-held", email: "linked@example.com")
        #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
        // Nothing of the link is stored: no identity, no session, no link event.
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-held") == nil)
        #expect(await broker.store.account(id: user.uid)?.identities.isEmpty == true)
        #expect(await Self.liveSessions(broker, user.uid) == sessions)
        #expect(await Self.events(broker, .link).isEmpty)
        let credential = try Self.pending(held)

        let done = try await Self.finish(broker, clock, user, credential: credential)
        #expect(done.status == 200)
        #expect(done.json?["user"]?["uid"]?.stringValue == user.uid.rawValue)
        #expect(try Self.claims(done)["mfa"] == "totp")
        let stored = await broker.store.account(provider: ProviderID("google"), subject: "g-held")
        #expect(stored?.id == user.uid)
        #expect(stored?.identities.map(\.provider) == [ProviderID("google")])
        #expect(stored?.identities.first?.kind == .idToken)
        #expect(await Self.liveSessions(broker, user.uid) == sessions + 1)
        let links = await Self.events(broker, .link)
        #expect(links.map(\.provider) == ["google"] && links.first?.uid == user.uid)
        // The next Google sign-in is a returning one, still asked for the second factor.
        let again = try await Self.googleSignIn(broker, subject: "g-held", email: "linked@example.com")
        #expect(again.status == 401 && again.errorCode == "MFA_REQUIRED")
    }

    @Test func aHeldLinkThatNoLongerAppliesIsRefusedAndLinksNothing() async throws {
        let (broker, clock, user) = try await Self.heldLinkAccount("moved@example.com")
        let held = try await Self.googleSignIn(broker, subject: "g-late", email: "moved@example.com")
        #expect(held.status == 401 && held.errorCode == "MFA_REQUIRED")
        let credential = try Self.pending(held)
        // A changed credential is no pending sign-in at all.
        let changed = try await Self.finish(broker, clock, user, credential: credential + "x")
        #expect(changed.status == 401 && changed.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
        // Meanwhile the account got a Google identity of its own: the held link no longer applies.
        _ = try await broker.store.update(id: user.uid, options: AccountWriteOptions()) { account in
            account.identities.append(
                Identity(provider: ProviderID("google"), subject: "g-own", email: nil, linkedAt: clock.now))
        }
        let sessions = await Self.liveSessions(broker, user.uid)
        let refused = try await Self.finish(broker, clock, user, credential: credential)
        #expect(refused.status == 401 && refused.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-late") == nil)
        #expect(await Self.liveSessions(broker, user.uid) == sessions)
        #expect(await Self.events(broker, .link).isEmpty)
        // The code was not spent by the refused completion: a new sign-in's second step takes it.
        let password = await Self.signIn(broker, "moved@example.com")
        let done = try await Self.finish(broker, clock, user, credential: try Self.pending(password))
        #expect(done.status == 200)
    }

    /// The same over the compatibility listener: `signInWithIdp` answers the pending credential and links nothing;
    /// `mfaSignIn:finalize` links the identity.
    @Test func aHeldLinkOverTheListenerIsMadeByMfaSignInFinalize() async throws {
        let (broker, clock, user) = try await Self.heldLinkAccount("listener@example.com")
        let token = try broker.stubs.idToken(
            "google", claims: ["sub": "g-listener", "email": "listener@example.com", "email_verified": true])
        let held = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(token)", returnIdpCredential: true)
        #expect(held.status == 200 && held.json?["idToken"] == nil)
        let pending = try #require(held.json?["mfaPendingCredential"]?.stringValue)
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-listener") == nil)
        #expect(await Self.events(broker, .link).isEmpty)

        let done = await FirebaseSecondFactorTests.v2(
            broker, "mfaSignIn:finalize",
            [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(user.factorID),
                "totpVerificationInfo": ["verificationCode": .string(try Self.code(user.secret, clock))],
            ])
        #expect(done.status == 200)
        #expect(try FirebaseSecondFactorTests.claims(done)["firebase"]?["sign_in_second_factor"] == "totp")
        let linked = await broker.store.account(provider: ProviderID("google"), subject: "g-listener")
        #expect(linked?.id == user.uid)
        #expect(await Self.events(broker, .link).map(\.provider) == ["google"])
    }
}
