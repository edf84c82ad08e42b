import BrokerCore
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
        let python = try await FirebaseAdminSDKTests.sdkPython()
        let harness = try await BrokerHarness.start(firebase: true)
        do {
            try await run(python, against: harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    private func run(_ python: String, against harness: BrokerHarness) async throws {
        let listener = try #require(harness.firebaseURL)
        let script = FirebaseAdminSDKTests.packageRoot.appendingPathComponent(
            "Tests/ContractTests/FirebaseAdmin/firebase_admin_oob.py")
        let child = try ChildProcess(
            python, [script.path],
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": harness.directory.path, "LANG": "C.UTF-8",
                "FIREBASE_AUTH_EMULATOR_HOST": String(listener.dropFirst("http://".count)),
                "BROKER_PROJECT_ID": harness.services.config.projectID, "BROKER_URL": harness.baseURL,
            ])
        let status: Int32
        do {
            status = try await child.wait(seconds: 300)
        } catch {
            child.terminate(SIGKILL)
            Issue.record("the firebase-admin oob scenarios did not finish in 300 s:\n\(child.stdout.suffix(4000))")
            return
        }
        #expect(status == 0, "\(child.stdout.suffix(12000))\n\(child.stderr.suffix(4000))")
        #expect(child.stdout.contains("firebase-admin oob: all scenarios passed"))

        // The state the SDK's links left, read from the store.
        let created = try #require(try await harness.store.account(email: "oob-new@example.com"))
        #expect(created.emailVerified && created.origin == .emailLink && created.passwordHash == nil)
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
