import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Passkeys in a real browser (contract section 15): Debian's `chromium` with its virtual authenticator (the DevTools
/// `WebAuthn` domain: CTAP2, internal transport, resident keys, user verification), driven by selenium as
/// ``ConsoleBrowserTests`` drives it, on a page served from `http://localhost` (a secure context) that calls
/// `navigator.credentials.create()` and `.get()` with the broker's options and posts the results back: a
/// registration, two sign-ins with the counter advancing, and a refused replay. Runs like the console's browser test.
@Suite struct PasskeyBrowserTests {
    @Test(
        .enabled(
            if: ConsoleBrowserTests.installed || ConsoleBrowserTests.required,
            "Chromium is not installed here (apt-get install -y chromium chromium-driver; CI installs it)"),
        .disabled(
            if: ProcessInfo.processInfo.environment["BROKER_TEST_DEFER_BROWSER"] == "1",
            "BROKER_TEST_DEFER_BROWSER=1: run on its own (swift test --filter PasskeyBrowserTests)"),
        .timeLimit(.minutes(10)))
    func aPasskeyRegistersAndSignsInInChromium() async throws {
        try await Self.runPageScenarios("passkey_browser.py", marker: "passkey-browser: all scenarios passed uid=") {
            broker, uid in
            // What the browser left: one passkey whose counter advanced with each sign-in, and the audit trail.
            let passkeys = try await broker.store.passkeys(uid: uid)
            #expect(passkeys.count == 1)
            #expect(passkeys.first.map { $0.signCount >= 2 } == true)
            #expect(passkeys.first?.lastUsedAt != nil)
            let events = try await broker.store.auditEvents(uid: uid, before: nil, limit: 20)
            #expect(events.filter { $0.action == .passkeyRegister }.count == 1)
            #expect(
                events.filter { $0.action == .signIn && $0.provider == "passkey" }.map(\.outcome).sorted()
                    == ["success", "success"])
        }
    }
}

extension PasskeyBrowserTests {
    /// Runs `Tests/ContractTests/Console/<script>` with selenium's Python against a live broker whose passkeys and
    /// CORS accept the script's page on `http://localhost:<PAGE_PORT>` (a secure context), with `BROKER_URL`,
    /// `PAGE_PORT` and what `prepare` adds in its environment; expects it to exit 0 printing `marker` and a uid,
    /// then hands the broker and that uid to `check` for the state after.
    static func runPageScenarios(
        _ script: String, marker: String,
        prepare: (BrokerHarness) async throws -> [String: String] = { _ in [:] },
        check: (BrokerHarness, AccountID) async throws -> Void
    ) async throws {
        try #require(ConsoleBrowserTests.installed, "\(ConsoleBrowserTests.chromium) is missing")
        let python = try await ConsoleBrowserTests.seleniumPython()
        let port = try SMTPTestServer.freePort()
        let origin = "http://localhost:\(port)"
        try await withBroker(configure: { document in
            guard case .object(var members) = document else { return document }
            members["passkeys"] = ["enabled": true, "rpId": "localhost", "origins": [.string(origin)]]
            members["cors"] = ["allowedOrigins": [.string(origin)]]
            return .object(members)
        }) { broker in
            let path = ConsoleBrowserTests.packageRoot.appendingPathComponent("Tests/ContractTests/Console/\(script)")
            let environment = [
                "PATH": "/usr/bin:/bin", "HOME": broker.directory.path, "LANG": "C.UTF-8",
                "BROKER_URL": broker.baseURL, "PAGE_PORT": String(port),
            ].merging(try await prepare(broker)) { _, added in added }
            let child = try ChildProcess(python, [path.path], environment: environment)
            let status: Int32
            do {
                status = try await child.wait(seconds: 240)
            } catch {
                child.terminate(SIGKILL)
                Issue.record("the browser scenarios did not finish in 240 s:\n\(child.stdout.suffix(4000))")
                return
            }
            #expect(status == 0, "\(child.stdout.suffix(8000))\n\(child.stderr.suffix(4000))")
            let line = try #require(child.stdout.split(separator: "\n").first { $0.hasPrefix(marker) })
            try await check(broker, AccountID(String(line.dropFirst(marker.count))))
        }
    }
}
