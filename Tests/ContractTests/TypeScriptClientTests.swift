import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The TypeScript client (`clients/typescript`, contract section 25) compiled with Debian's TypeScript (`tsc`, from
/// `node-typescript`) and its tests (`test/client.test.mjs`) run by Node's own test runner against a live broker and
/// the stub providers: provider, password, guest and passkey sign-ins, second factors, links, one refresh in flight
/// for twenty callers, auto-login from each storage, typed errors, and no token on the console. A failed Node test
/// fails this one, with its output.
///
/// Needs `node` and `tsc`; skipped, saying so, when either is missing, unless `BROKER_TEST_REQUIRE_TYPESCRIPT=1`
/// (CI, whose `.ci/run` installs `node-typescript`) makes that a failure.
@Suite struct TypeScriptClientTests {
    static let node = "/usr/bin/node"
    static let tsc = "/usr/bin/tsc"
    static let required = ProcessInfo.processInfo.environment["BROKER_TEST_REQUIRE_TYPESCRIPT"] == "1"
    static let available =
        FileManager.default.isExecutableFile(atPath: node) && FileManager.default.isExecutableFile(atPath: tsc)
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let client = packageRoot.appendingPathComponent("clients/typescript")

    /// The doc's examples (docs/client-typescript.md) are the text of `clients/typescript/examples/*.ts` below their
    /// marker line, and those compile against the package's sources: a doc that drifts from the API fails here.
    @Test(.enabled(if: available || required, "tsc is not installed here (Debian: node-typescript)"))
    func theDocsExamplesCompile() async throws {
        let doc = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("docs/client-typescript.md"), encoding: .utf8)
        let blocks = doc.components(separatedBy: "```ts\n").dropFirst().map {
            String($0.components(separatedBy: "```")[0])
        }
        #expect(blocks.count == 2)
        let examples = try ["web.ts", "react-native.ts"].map { name in
            let text = try String(
                contentsOf: Self.client.appendingPathComponent("examples/\(name)"), encoding: .utf8)
            return try #require(text.components(separatedBy: "---\n").last)
        }
        #expect(blocks == examples)
        let compile = try ChildProcess(
            Self.tsc, ["-p", Self.client.appendingPathComponent("examples/tsconfig.json").path],
            environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8"])
        let status = try await compile.wait(seconds: 120)
        #expect(status == 0, "tsc failed on the examples:\n\(compile.stdout.suffix(6000))")
    }

    @Test(
        .enabled(if: available || required, "node or tsc is not installed here (Debian: nodejs, node-typescript)"),
        .timeLimit(.minutes(5)))
    func theClientPassesItsTestsAgainstALiveBroker() async throws {
        let harness = try await BrokerHarness.start(
            cipher: OutboxCipher(key: try AESGCMKey(bytes: SecureRandom.bytes(32)))
        ) { document in
            guard case .object(var members) = document else { return document }
            members["anonymous"] = ["enabled": true]
            members["mfa"] = ["totp": ["enabled": true]]
            members["passkeys"] = ["enabled": true, "rpId": "localhost", "origins": ["http://localhost"]]
            return .object(members)
        }
        try await harness.stopping { harness in
            let output = harness.directory.appendingPathComponent("typescript-client")
            let environment = ["PATH": "/usr/bin:/bin", "HOME": harness.directory.path, "LANG": "C.UTF-8"]
            let compile = try ChildProcess(
                Self.tsc, ["-p", Self.client.appendingPathComponent("tsconfig.json").path, "--outDir", output.path],
                environment: environment)
            let compiled = try await compile.wait(seconds: 120)
            try #require(compiled == 0, "tsc failed:\n\(compile.stdout.suffix(6000))\n\(compile.stderr.suffix(2000))")
            let tests = try ChildProcess(
                Self.node, ["--test", Self.client.appendingPathComponent("test/client.test.mjs").path],
                environment: environment.merging([
                    "BROKER_URL": harness.baseURL, "STUBS_URL": harness.stubs.baseURL,
                    "BROKER_CLIENT_MODULE": output.appendingPathComponent("index.js").absoluteString,
                ]) { _, new in new })
            let status = try await tests.wait(seconds: 180)
            #expect(status == 0, "\(tests.stdout.suffix(12000))\n\(tests.stderr.suffix(4000))")
            #expect(tests.stdout.contains("# fail 0"))
            // Every test ran: none skipped, and as many as the file defines.
            let defined =
                try String(contentsOf: Self.client.appendingPathComponent("test/client.test.mjs"), encoding: .utf8)
                .components(separatedBy: "\ntest(").count - 1
            #expect(defined >= 12)
            #expect(tests.stdout.contains("# pass \(defined)\n"))
            // What the flows did is in the broker's audit log, as the state after.
            let actions = Set(
                try await harness.store.auditEvents(uid: nil, before: nil, limit: 1000)
                    .filter { $0.outcome == "success" }.map(\.action))
            let expected: Set<AuditAction> = [
                .signUp, .signIn, .signOut, .link, .unlink, .passwordChange, .mfaEnroll, .mfaRecoveryCodeUsed,
            ]
            #expect(expected.subtracting(actions).isEmpty, "not audited: \(expected.subtracting(actions))")
        }
    }
}

/// The TypeScript client in Debian's Chromium (contract section 25), driven by selenium as ``PasskeyBrowserTests``
/// drives the broker's ceremonies: a page on `http://localhost` imports the compiled package and, through it alone,
/// signs up, registers a passkey with Chromium's virtual authenticator (`browserPasskeys()`), signs in with it, is
/// signed in again after a reload (`browserStorage(localStorage)`), and signs out. Runs like the console's browser
/// test (deferred beside the timed suites, required in CI).
@Suite struct TypeScriptClientBrowserTests {
    @Test(
        .enabled(
            if: (ConsoleBrowserTests.installed && TypeScriptClientTests.available) || ConsoleBrowserTests.required,
            "Chromium or tsc is not installed here (apt-get install -y chromium chromium-driver node-typescript)"),
        .disabled(
            if: ProcessInfo.processInfo.environment["BROKER_TEST_DEFER_BROWSER"] == "1",
            "BROKER_TEST_DEFER_BROWSER=1: run on its own (swift test --filter TypeScriptClientBrowserTests)"),
        .timeLimit(.minutes(10)))
    func thePackageSignsInWithAPasskeyInChromium() async throws {
        try await PasskeyBrowserTests.runPageScenarios(
            "typescript_client_browser.py", marker: "typescript-browser: all scenarios passed uid=",
            prepare: { broker in
                let dist = broker.directory.appendingPathComponent("typescript-client")
                let compile = try ChildProcess(
                    TypeScriptClientTests.tsc,
                    [
                        "-p", TypeScriptClientTests.client.appendingPathComponent("tsconfig.json").path, "--outDir",
                        dist.path,
                    ],
                    environment: ["PATH": "/usr/bin:/bin", "HOME": broker.directory.path, "LANG": "C.UTF-8"])
                try #require(try await compile.wait(seconds: 120) == 0, "tsc failed:\n\(compile.stdout.suffix(6000))")
                return ["CLIENT_DIST": dist.path]
            }
        ) { broker, uid in
            // What the page left: the passkey, its sign-in, and every session ended by the client's signOut.
            #expect(try await broker.store.passkeys(uid: uid).count == 1)
            let events = try await broker.store.auditEvents(uid: uid, before: nil, limit: 20)
            #expect(events.filter { $0.action == .passkeyRegister }.count == 1)
            #expect(events.contains { $0.action == .signIn && $0.provider == "passkey" && $0.outcome == "success" })
            #expect(events.filter { $0.action == .signOut }.count == 2)
        }
    }
}
