import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The admin console in Firefox: Debian's `firefox-esr`, headless, with a throwaway profile, driven over its
/// Marionette protocol by Mozilla's `marionette-driver` (PyPI, pinned, in a virtual environment under `.build`; no
/// geckodriver), against a live broker over loopback. The scenarios are the core of ConsoleBrowserTests: sign-in,
/// a search by email, a disable seen through the API, a markup display name shown as text, and sign-out.
/// Skipped, saying so, when firefox-esr is not installed (`BROKER_TEST_REQUIRE_FIREFOX=1`, which CI sets, makes that
/// a failure); deferred from CI's main run with the Chromium one (`BROKER_TEST_DEFER_BROWSER=1`).
@Suite struct ConsoleFirefoxTests {
    static let firefox = "/usr/bin/firefox-esr"
    static let marionetteVersion = "3.7.1"
    static let installed = FileManager.default.isExecutableFile(atPath: firefox)
    /// `BROKER_TEST_REQUIRE_FIREFOX=1` (CI): a missing Firefox fails the test instead of skipping it.
    static let required = ProcessInfo.processInfo.environment["BROKER_TEST_REQUIRE_FIREFOX"] == "1"

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python of the marionette-driver environment: `BROKER_TEST_MARIONETTE_PYTHON`, or
    /// `.build/console-firefox-venv`, made (from PyPI) when it lacks the pinned marionette-driver. `.ci/run` makes it
    /// beforehand.
    static func marionettePython() async throws -> String {
        if let python = ProcessInfo.processInfo.environment["BROKER_TEST_MARIONETTE_PYTHON"], !python.isEmpty { return python }
        let venv = packageRoot.appendingPathComponent(".build/console-firefox-venv")
        let python = venv.appendingPathComponent("bin/python").path
        let environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8"]
        if FileManager.default.isExecutableFile(atPath: python) {
            let check = try ChildProcess(
                python, ["-c", "import importlib.metadata as m; print(m.version('marionette-driver'))"], environment: environment)
            if try await check.wait(seconds: 60) == 0,
                check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == marionetteVersion
            {
                return python
            }
        }
        try? FileManager.default.removeItem(at: venv)
        let make = try ChildProcess("/usr/bin/python3", ["-m", "venv", venv.path], environment: environment)
        try #require(try await make.wait(seconds: 120) == 0, "python3 -m venv failed:\n\(make.stderr.suffix(2000))")
        let pip = try ChildProcess(
            venv.appendingPathComponent("bin/pip").path,
            ["install", "--quiet", "--disable-pip-version-check", "marionette-driver==\(marionetteVersion)"],
            environment: environment)
        try #require(try await pip.wait(seconds: 300) == 0, "pip install marionette-driver failed:\n\(pip.stderr.suffix(2000))")
        return python
    }

    @Test(
        .enabled(if: installed || required, "Firefox is not installed here (apt-get install -y firefox-esr; CI installs it)"),
        .disabled(
            if: ProcessInfo.processInfo.environment["BROKER_TEST_DEFER_BROWSER"] == "1",
            "BROKER_TEST_DEFER_BROWSER=1: run on its own (swift test --filter ConsoleFirefoxTests)"),
        .timeLimit(.minutes(10)))
    func theConsoleWorksInFirefox() async throws {
        try #require(Self.installed, "\(Self.firefox) is missing")
        let python = try await Self.marionettePython()
        let adminToken = Hex.encode(SecureRandom.bytes(16))
        try await withBroker(adminToken: adminToken) { broker in
            let admin = ["Authorization": "Bearer \(adminToken)"]
            let email = "ada.lovelace@example.com"
            let ada = try await broker.post("/v1/signup", ["email": .string(email), "password": "correct horse"])
            #expect(ada.status == 201)
            let uid = try #require(ada.json?["user"]?["uid"]?.stringValue)
            let mallory = try await broker.post("/v1/signup", ["email": "mallory@example.com", "password": "battery staple"])
            let xssUID = try #require(mallory.json?["user"]?["uid"]?.stringValue)
            let named = try await broker.request(
                "PATCH", "/admin/v1/users/\(xssUID)", json: ["displayName": "<img src=x onerror=alert(1)>"], headers: admin)
            #expect(named.status == 200)

            let profile = broker.directory.appendingPathComponent("firefox-profile")
            try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
            let child = try ChildProcess(
                python, [Self.packageRoot.appendingPathComponent("Tests/ContractTests/Console/console_firefox.py").path],
                environment: [
                    "PATH": "/usr/bin:/bin", "HOME": broker.directory.path, "LANG": "C.UTF-8", "TZ": "Europe/Berlin",
                    "CONSOLE_URL": broker.baseURL, "CONSOLE_ADMIN_TOKEN": adminToken, "CONSOLE_EMAIL": email,
                    "CONSOLE_XSS_UID": xssUID, "CONSOLE_PROFILE": profile.path,
                ])
            let status: Int32
            do {
                status = try await child.wait(seconds: 300)
            } catch {
                child.terminate(SIGKILL)
                Issue.record("the Firefox scenarios did not finish in 300 s:\n\(child.stdout.suffix(4000))")
                return
            }
            print(child.stdout.suffix(4000))
            #expect(status == 0, "\(child.stdout.suffix(8000))\n\(child.stderr.suffix(4000))")
            #expect(child.stdout.contains("console-firefox: all scenarios passed"))

            // The state the browser left, read from the store: Ada disabled by the admin, the console session
            // ended, and the markup display name stored as it was given.
            let after = try #require(try await broker.store.account(id: AccountID(uid)))
            #expect(after.disabled)
            let events = try await broker.store.auditEvents(uid: AccountID(uid), before: nil, limit: 20)
            #expect(events.first.map { "\($0.action) \($0.actor.rawValue)" } == "disable admin")
            let signOuts = try await broker.store.auditEvents(matching: AuditFilter(action: .consoleSignOut), before: nil, limit: 5)
            #expect(signOuts.count == 1)
            #expect(try await broker.store.account(id: AccountID(xssUID))?.displayName == "<img src=x onerror=alert(1)>")
        }
    }
}
