import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The admin console in a real browser: Debian's `chromium` driven by selenium (PyPI, pinned, in a virtual
/// environment under `.build`) through `/usr/bin/chromedriver`, headless, against a live broker over loopback.
/// Runs whenever Chromium and chromedriver are installed (CI installs both); skipped, saying so, when they are
/// not. With `BROKER_CONSOLE_SCREENSHOTS=1` it also saves a screenshot of each page into `docs/console/`.
/// A browser is heavy beside the timed suites, so CI runs it on its own after the others
/// (`BROKER_TEST_DEFER_BROWSER=1` skips it in the main run, as `BROKER_TEST_DEFER_TIMED` does the hostile clients).
@Suite struct ConsoleBrowserTests {
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    static let seleniumVersion = "4.51.0"
    static let installed = FileManager.default.isExecutableFile(atPath: chromium)
        && FileManager.default.isExecutableFile(atPath: chromedriver)
    /// `BROKER_TEST_REQUIRE_BROWSER=1` (CI): a missing Chromium fails the test instead of skipping it.
    static let required = ProcessInfo.processInfo.environment["BROKER_TEST_REQUIRE_BROWSER"] == "1"

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python of the selenium environment: `BROKER_TEST_SELENIUM_PYTHON`, or `.build/console-browser-venv`,
    /// made (from PyPI) when it lacks the pinned selenium. `.ci/run` makes it beforehand.
    static func seleniumPython() async throws -> String {
        if let python = ProcessInfo.processInfo.environment["BROKER_TEST_SELENIUM_PYTHON"], !python.isEmpty { return python }
        let venv = packageRoot.appendingPathComponent(".build/console-browser-venv")
        let python = venv.appendingPathComponent("bin/python").path
        let environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8"]
        if FileManager.default.isExecutableFile(atPath: python) {
            let check = try ChildProcess(python, ["-c", "import selenium; print(selenium.__version__)"], environment: environment)
            if try await check.wait(seconds: 60) == 0, check.stdout.contains(seleniumVersion) { return python }
        }
        try? FileManager.default.removeItem(at: venv)
        let make = try ChildProcess("/usr/bin/python3", ["-m", "venv", venv.path], environment: environment)
        try #require(try await make.wait(seconds: 120) == 0, "python3 -m venv failed:\n\(make.stderr.suffix(2000))")
        let pip = try ChildProcess(
            venv.appendingPathComponent("bin/pip").path,
            ["install", "--quiet", "--disable-pip-version-check", "selenium==\(seleniumVersion)"], environment: environment)
        try #require(try await pip.wait(seconds: 300) == 0, "pip install selenium failed:\n\(pip.stderr.suffix(2000))")
        return python
    }

    /// Runs `console_browser.py` against `broker` with `scenario`'s variables besides the common ones, and expects
    /// every scenario to pass.
    static func runScenarios(
        _ python: String, broker: BrokerHarness, adminToken: String, _ scenario: [String: String]
    ) async throws {
        let screenshots = ProcessInfo.processInfo.environment["BROKER_CONSOLE_SCREENSHOTS"] == "1"
            ? packageRoot.appendingPathComponent("docs/console").path : ""
        let child = try ChildProcess(
            python, [packageRoot.appendingPathComponent("Tests/ContractTests/Console/console_browser.py").path],
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": broker.directory.path, "LANG": "C.UTF-8", "TZ": "Europe/Berlin",
                "CONSOLE_URL": broker.baseURL, "CONSOLE_ADMIN_TOKEN": adminToken, "CONSOLE_SCREENSHOTS": screenshots,
            ].merging(scenario) { $1 })
        let status: Int32
        do {
            status = try await child.wait(seconds: 300)
        } catch {
            child.terminate(SIGKILL)
            Issue.record("the browser scenarios did not finish in 300 s:\n\(child.stdout.suffix(4000))")
            return
        }
        print(child.stdout.suffix(4000))
        #expect(status == 0, "\(child.stdout.suffix(8000))\n\(child.stderr.suffix(4000))")
        #expect(child.stdout.contains("console-browser: all scenarios passed"))
    }

    /// The seeded broker's config with passkeys on, for the ceremonies of ``TestAuthenticator`` on `localhost`.
    @Sendable static func withPasskeys(_ document: JSONValue) -> JSONValue {
        guard case .object(var members) = document else { return document }
        members["passkeys"] = ["enabled": true, "rpId": "localhost", "origins": ["http://localhost"]]
        return .object(members)
    }

    /// Registers a software authenticator's passkey named `name` on the account of `idToken`; its id.
    static func registerPasskey(_ broker: BrokerHarness, idToken: String, name: String) async throws -> String {
        let bearer = ["Authorization": "Bearer \(idToken)"]
        let options = try await broker.post("/v1/me/passkeys/options", [:], headers: bearer)
        #expect(options.status == 200)
        let publicKey = try #require(options.json?["publicKey"])
        let challenge = try #require(Base64URL.decode(publicKey["challenge"]?.stringValue ?? ""))
        let handle = try #require(Base64URL.decode(publicKey["user"]?["id"]?.stringValue ?? ""))
        var authenticator = try TestAuthenticator()
        let credential = try authenticator.register(challenge: challenge, userHandle: handle)
        let registered = try await broker.post(
            "/v1/me/passkeys", ["credential": credential, "name": .string(name)], headers: bearer)
        #expect(registered.status == 201)
        return try #require(registered.json?["passkey"]?["id"]?.stringValue)
    }

    @Test(
        .enabled(if: installed || required, "Chromium is not installed here (apt-get install -y chromium chromium-driver; CI installs it)"),
        .disabled(
            if: ProcessInfo.processInfo.environment["BROKER_TEST_DEFER_BROWSER"] == "1",
            "BROKER_TEST_DEFER_BROWSER=1: run on its own (swift test --filter ConsoleBrowserTests)"),
        .timeLimit(.minutes(10)))
    func theConsoleWorksInChromium() async throws {
        try #require(Self.installed, "\(Self.chromium) or \(Self.chromedriver) is missing")
        let python = try await Self.seleniumPython()
        let adminToken = Hex.encode(SecureRandom.bytes(16))
        try await withBroker(adminToken: adminToken, configure: Self.withPasskeys) { broker in
            let admin = ["Authorization": "Bearer \(adminToken)"]
            // Ada: a password and Google, so Google can be unlinked; a sign-in and a refused one for the chart.
            let email = "ada.lovelace@example.com"
            let ada = try await broker.post("/v1/signup", ["email": .string(email), "password": "correct horse"])
            #expect(ada.status == 201)
            let uid = try #require(ada.json?["user"]?["uid"]?.stringValue)
            let idToken = try #require(ada.json?["idToken"]?.stringValue)
            let google = try broker.stubs.idToken("google", claims: ["sub": "g-ada", "email": .string(email), "email_verified": true])
            let linked = try await broker.post(
                "/v1/me/identities/google", ["idToken": .string(google)], headers: ["Authorization": "Bearer \(idToken)"])
            #expect(linked.status == 200)
            // A passkey, which the console lists and deletes.
            let passkeyID = try await Self.registerPasskey(broker, idToken: idToken, name: "Ada laptop")
            #expect(try await broker.store.passkeys(uid: AccountID(uid)).map(\.id) == [passkeyID])
            #expect(try await broker.post("/v1/signin/password", ["email": .string(email), "password": "correct horse"]).status == 200)
            #expect(try await broker.post("/v1/signin/password", ["email": .string(email), "password": "wrong horse"]).status == 400)
            #expect(try await broker.googleSignIn(["sub": "g-grace", "email": "grace@example.com", "email_verified": true]).status == 201)
            // Mallory: a display name of markup.
            let mallory = try await broker.post("/v1/signup", ["email": "mallory@example.com", "password": "battery staple"])
            let xssUID = try #require(mallory.json?["user"]?["uid"]?.stringValue)
            let named = try await broker.request(
                "PATCH", "/admin/v1/users/\(xssUID)", json: ["displayName": "<img src=x onerror=alert(1)>"], headers: admin)
            #expect(named.status == 200)

            try await Self.runScenarios(
                python, broker: broker, adminToken: adminToken,
                [
                    "CONSOLE_EMAIL": email, "CONSOLE_XSS_UID": xssUID, "CONSOLE_PASSKEY_ID": passkeyID,
                    "CONSOLE_PASSKEY_NAME": "Ada laptop",
                    "CONSOLE_OIDC_ISSUER": broker.stubs.oidcIssuer,
                ])

            // The state the browser left, read from the store.
            let after = try #require(try await broker.store.account(id: AccountID(uid)))
            #expect(after.disabled)
            #expect(after.identities.isEmpty)
            #expect(after.customClaims.flatMap { JSONValue.parse(Array($0.utf8)) } == ["role": "editor"])
            // The passkey deleted in the console, behind its confirmation: gone, one audit event by the admin.
            #expect(try await broker.store.passkeys(uid: AccountID(uid)).isEmpty)
            let deleted = try await broker.store.auditEvents(
                matching: AuditFilter(action: .passkeyDelete), before: nil, limit: 10)
            #expect(deleted.map(\.actor) == [.admin] && deleted.map(\.uid) == [AccountID(uid)])
            // The provider added, disabled and deleted in the console: one audit event each, by the admin.
            let changes = try await broker.store.auditEvents(
                matching: AuditFilter(action: .providerConfig), before: nil, limit: 10)
            #expect(changes.map(\.outcome) == ["deleted", "updated", "created"])
            #expect(changes.allSatisfy { $0.provider == "oidc.acme" && $0.actor == .admin })
            #expect(try await broker.store.providerConfigs().isEmpty)
            let events = try await broker.store.auditEvents(uid: AccountID(uid), before: nil, limit: 20)
            #expect(
                events.prefix(3).map { "\($0.action) \($0.actor.rawValue)" } == ["disable admin", "unlink admin", "update admin"])
            #expect(!events.contains { $0.action == .revokeSessions })
            let console = try await broker.store.auditEvents(matching: AuditFilter(action: .consoleSignOut), before: nil, limit: 5)
            #expect(console.count == 1)
            // The markup display name is stored as it was given, and nothing changed it.
            #expect(try await broker.store.account(id: AccountID(xssUID))?.displayName == "<img src=x onerror=alert(1)>")
        }
    }
}
