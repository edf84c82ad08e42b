import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// An email-link sign-in to an account with a second factor proves its first factor before it is held: a wrong
/// code is refused (`INVALID_OOB_CODE`) with no pending credential, and a right one is spent by the hold (a replay
/// is refused as the code is on any sign-in).
extension SecondFactorTests {
    static func emailLinkSignIn(
        _ broker: InProcessBroker, code: String, email: String
    ) async throws -> SignInResult {
        try await broker.services.signIn.signIn(
            emailLinkCode: code, email: email, requestID: "r-link",
            surface: .firebase)
    }

    @Test func anEmailLinkIsHeldForItsSecondFactorOnlyWithItsRightCodeAndOnce() async throws {
        let (broker, clock) = try await Self.start()
        let user = try await Self.enrolled(broker, clock, "by-link@example.com")
        // Verified: an email link does not take the account over (which would remove its factor).
        _ = try await broker.store.update(id: user.uid, options: AccountWriteOptions()) { $0.emailVerified = true }
        let sessions = await Self.liveSessions(broker, user.uid)

        let wrong = await #expect(throws: ActionCodeError.self) {
            _ = try await Self.emailLinkSignIn(broker, code: "bm8tc3VjaC1jb2Rl", email: "by-link@example.com")
        }
        #expect(wrong?.code == .invalidCode)

        let link = try await broker.services.actionCodes.issueLink(
            .signIn, email: "by-link@example.com", continueURL: nil, requestID: "r-issue")
        let held = await #expect(throws: SecondFactorRequired.self) {
            _ = try await Self.emailLinkSignIn(broker, code: link.oobCode, email: "by-link@example.com")
        }
        #expect(held?.pending.uid == user.uid)
        let replay = await #expect(throws: ActionCodeError.self) {
            _ = try await Self.emailLinkSignIn(broker, code: link.oobCode, email: "by-link@example.com")
        }
        #expect(replay?.code == .invalidCode)
        #expect(await Self.liveSessions(broker, user.uid) == sessions)

        let done = try await broker.services.signIn.signIn(
            pendingCredential: try #require(held?.pending.credential),
            answer: .totp(factorID: user.factorID, code: try Self.code(user.secret, clock)), requestID: "r-mfa",
            surface: .firebase)
        #expect(done.account.id == user.uid)
        #expect(await Self.liveSessions(broker, user.uid) == sessions + 1)
    }
}
