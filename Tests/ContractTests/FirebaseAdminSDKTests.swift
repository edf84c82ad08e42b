import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Firebase's own Python Admin SDK (firebase-admin, PyPI, pinned, in a virtual environment under `.build`) against a
/// live broker's Firebase-compatible listener, through `FIREBASE_AUTH_EMULATOR_HOST`: the scenarios of
/// `FirebaseAdmin/firebase_admin_sdk.py` (create, get by every key, get many, list in pages, update with
/// deletions, custom claims, revocation and `verify_id_token(check_revoked=True)` on the broker's ID tokens, admin
/// calls on the client paths, delete one and many, import with scrypt and MD5 hashes and a client-API sign-in
/// after, the OIDC provider configs, and the error types the SDK raises). A failed Python assertion fails this
/// test, with its traceback.
///
/// Needs Debian's `python3` with `venv` (CI installs `python3-venv`) and PyPI for the first run; skipped, saying
/// so, when `python3` is missing, unless `BROKER_TEST_REQUIRE_FIREBASE_ADMIN=1` (CI) makes that a failure.
/// `BROKER_TEST_FIREBASE_ADMIN_PYTHON` names a Python that has the SDK (`.ci/run` makes it beforehand).
@Suite struct FirebaseAdminSDKTests {
    static let sdkVersion = "7.7.0"
    static let python3 = "/usr/bin/python3"
    static let required = ProcessInfo.processInfo.environment["BROKER_TEST_REQUIRE_FIREBASE_ADMIN"] == "1"
    static let configuredPython = ProcessInfo.processInfo.environment["BROKER_TEST_FIREBASE_ADMIN_PYTHON"]
        .flatMap { $0.isEmpty ? nil : $0 }
    static let available = configuredPython != nil || FileManager.default.isExecutableFile(atPath: python3)

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python of the SDK's environment: `BROKER_TEST_FIREBASE_ADMIN_PYTHON`, or `.build/firebase-admin-venv`,
    /// made (from PyPI) when it lacks the pinned SDK, once for every suite that asks (they run at the same time).
    static func sdkPython() async throws -> String {
        if let configuredPython { return configuredPython }
        return try await environment.python()
    }

    /// The one making of the SDK's environment per test process.
    static let environment = SDKEnvironment()

    actor SDKEnvironment {
        private var making: Task<String, any Error>?

        func python() async throws -> String {
            if let making { return try await making.value }
            let task = Task { try await SDKEnvironment.make() }
            making = task
            return try await task.value
        }

        struct SetupFailed: Error, CustomStringConvertible {
            let description: String
        }

        static func make() async throws -> String {
            let venv = packageRoot.appendingPathComponent(".build/firebase-admin-venv")
            let python = venv.appendingPathComponent("bin/python").path
            let environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8"]
            if FileManager.default.isExecutableFile(atPath: python) {
                let check = try ChildProcess(
                    python, ["-c", "import firebase_admin; print(firebase_admin.__version__)"], environment: environment)
                if try await check.wait(seconds: 60) == 0, check.stdout.contains(sdkVersion) { return python }
            }
            try? FileManager.default.removeItem(at: venv)
            let make = try ChildProcess(python3, ["-m", "venv", venv.path], environment: environment)
            guard try await make.wait(seconds: 120) == 0 else {
                throw SetupFailed(description: "python3 -m venv failed (Debian: python3-venv):\n\(make.stderr.suffix(2000))")
            }
            let pip = try ChildProcess(
                venv.appendingPathComponent("bin/pip").path,
                ["install", "--quiet", "--disable-pip-version-check", "firebase-admin==\(sdkVersion)"], environment: environment)
            guard try await pip.wait(seconds: 300) == 0 else {
                throw SetupFailed(description: "pip install firebase-admin failed:\n\(pip.stderr.suffix(2000))")
            }
            return python
        }
    }

    @Test(
        .enabled(if: available || required, "python3 is not installed here (CI installs python3-venv)"),
        .timeLimit(.minutes(10)))
    func theAdminSDKManagesTheBrokersUsers() async throws {
        try await Self.runScenarios("firebase_admin_sdk.py", passed: "firebase-admin: all scenarios passed") { harness in
            try await Self.checkStateAfter(harness)
        }
    }

    /// Runs `FirebaseAdmin/<script>` with the SDK's Python against a live broker's Firebase listener
    /// (`FIREBASE_AUTH_EMULATOR_HOST`), expects it to exit 0 printing `passed`, then hands the broker to
    /// `checkState` for the state the script left, and stops it.
    static func runScenarios(
        _ script: String, passed: String, checkState: (BrokerHarness) async throws -> Void
    ) async throws {
        let python = try await sdkPython()
        let harness = try await BrokerHarness.start(firebase: true)
        do {
            let listener = try #require(harness.firebaseURL)
            let child = try ChildProcess(
                python, [packageRoot.appendingPathComponent("Tests/ContractTests/FirebaseAdmin/\(script)").path],
                environment: [
                    "PATH": "/usr/bin:/bin", "HOME": harness.directory.path, "LANG": "C.UTF-8",
                    "FIREBASE_AUTH_EMULATOR_HOST": String(listener.dropFirst("http://".count)),
                    "BROKER_PROJECT_ID": harness.services.config.projectID, "BROKER_URL": harness.baseURL,
                    // For a provider created at run time (issue 33): its issuer and a token for its client id.
                    "BROKER_OIDC_ISSUER": harness.stubs.oidcIssuer,
                    "BROKER_OIDC_TOKEN": try harness.stubs.oidcIDToken(
                        claims: ["aud": "sdk-live-client", "sub": "sdk-live-user"]),
                    "BROKER_OIDC_CONFIG_AUDIENCE": StubProviders.oidcAudience,
                ])
            let status: Int32
            do {
                status = try await child.wait(seconds: 300)
            } catch {
                child.terminate(SIGKILL)
                Issue.record("\(script) did not finish in 300 s:\n\(child.stdout.suffix(4000))")
                await harness.stop()
                return
            }
            #expect(status == 0, "\(child.stdout.suffix(12000))\n\(child.stderr.suffix(4000))")
            #expect(child.stdout.contains(passed))
            try await checkState(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    static func checkStateAfter(_ harness: BrokerHarness) async throws {
        // The state the SDK left, read from the store.
        let imported = try #require(try await harness.store.account(id: AccountID("sdk-imp-1")))
        #expect(imported.phoneNumber == "+15551230006")
        #expect(imported.origin == .import)
        // The sign-in after the import replaced the scrypt hash with the broker's own.
        #expect(imported.password.map { ImportedPasswordHash.isImported($0.hash) } == false)
        #expect(try await harness.store.account(id: AccountID("sdk-imp-2")) == nil)
        #expect(try await harness.store.account(id: AccountID("sdk-del")) == nil)
        let updated = try #require(try await harness.store.account(id: AccountID("sdk-upd")))
        #expect(updated.displayName == nil && updated.phoneNumber == nil && updated.email == "upd2@example.com")
        let events = try await harness.store.auditEvents(uid: AccountID("sdk-upd"), before: nil, limit: 20)
        #expect(events.allSatisfy { $0.actor == .admin })
        #expect(Set(events.map(\.action.rawValue)).isSuperset(of: ["create", "update", "disable", "enable", "revoke_sessions"]))
    }
}
