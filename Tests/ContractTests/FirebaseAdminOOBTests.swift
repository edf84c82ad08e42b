import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Firebase's Python Admin SDK against a live broker's Firebase-compatible listener, for the out-of-band flows:
/// the scenarios of `FirebaseAdmin/firebase_admin_oob.py` (`generate_password_reset_link`,
/// `generate_email_verification_link` and `generate_sign_in_with_email_link`, each link's code followed through
/// the client API; `create_session_cookie` and `verify_session_cookie(check_revoked=True)` after a revocation and
/// for a disabled user). Runs in the environment ``FirebaseAdminSDKTests`` makes, with the same skip rule.
@Suite struct FirebaseAdminOOBTests {
    @Test(
        .enabled(
            if: FirebaseAdminSDKTests.available || FirebaseAdminSDKTests.required,
            "python3 is not installed here (CI installs python3-venv)"),
        .timeLimit(.minutes(10)))
    func theAdminSDKsLinksAndSessionCookiesWork() async throws {
        try await FirebaseAdminSDKTests.runScenarios("firebase_admin_oob.py", passed: "firebase-admin oob: all scenarios passed") {
            harness in try await Self.checkStateAfter(harness)
        }
    }

    static func checkStateAfter(_ harness: BrokerHarness) async throws {
        // The state the SDK's links left, read from the store.
        let created = try #require(try await harness.store.account(email: "oob-new@example.com"))
        #expect(created.emailVerified && created.origin == .emailLink && created.password?.hash == nil)
        let reset = try #require(try await harness.store.account(id: AccountID("oob-reset")))
        #expect(reset.emailVerified)
        #expect(try await harness.store.account(id: AccountID("oob-verify"))?.emailVerified == false)
        #expect(try await harness.store.account(id: AccountID("oob-apply"))?.emailVerified == true)
        #expect(try await harness.store.account(id: AccountID("oob-cookie"))?.tokensValidAfter != nil)
        #expect(try await harness.store.account(id: AccountID("oob-off"))?.disabled == true)
        #expect(try await harness.store.account(email: "oob-other@example.com") == nil)
        #expect(try await harness.store.outboxJobs(uid: nil, limit: 100).allSatisfy { $0.kind != .mail })
    }
}
