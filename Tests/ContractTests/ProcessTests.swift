import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The `broker` executable as an operator runs it.
@Suite struct ProcessTests {
    /// The built `broker` binary, beside the test bundle.
    static var brokerBinary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("broker")
    }

    static var shippedConfig: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("providers.json").path
    }

    /// Starts `binary` (the broker unless told) with `arguments`, in this process's environment without its
    /// `BROKER_*` and `GOOGLE_APPLICATION_CREDENTIALS` variables, plus `environment`.
    static func spawn(_ arguments: [String], binary: URL = ProcessTests.brokerBinary, environment: [String: String] = [:])
        throws -> ChildProcess
    {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("BROKER_") || key == "GOOGLE_APPLICATION_CREDENTIALS" {
            env.removeValue(forKey: key)
        }
        env.merge(environment) { _, new in new }
        return try ChildProcess(binary.path, arguments, environment: env)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("broker-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func checkConfigAcceptsTheShippedConfig() async throws {
        let child = try Self.spawn(["check-config", "--config", Self.shippedConfig])
        #expect(try await child.wait() == 0)
        #expect(child.stdout.contains("OK"))
    }

    @Test(arguments: ["check-config", "serve"])
    func aBadConfigIsRefusedNamingTheField(_ command: String) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var document = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Self.shippedConfig)))))
        guard case .object(var top) = document, case .object(var providers)? = top["providers"],
            case .object(var apple)? = providers["apple"]
        else { Issue.record("shipped config shape"); return }
        apple["audiences"] = []
        providers["apple"] = .object(apple)
        top["providers"] = .object(providers)
        document = .object(top)
        let path = directory.appendingPathComponent("bad.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: path))
        let child = try Self.spawn(
            [command, "--config", path, "--database", directory.appendingPathComponent("b.sqlite").path, "--port", "0"])
        #expect(try await child.wait() != 0)
        #expect(child.stderr.contains("providers.apple.audiences"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.sqlite").path))
    }

    /// A port in use stops `serve` with a message that says so and how to find the process holding it, and
    /// before anything is opened or created: no database file is left behind (issue 36, item 2).
    @Test func aPortInUseIsNamedAndNothingIsCreated() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let holder = MicroHTTPDServer()
        let port = try holder.start(host: "127.0.0.1", port: 0, maxBodyBytes: 1024) { _ in HTTPResponse(status: 200) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let child = try Self.spawn(
            ["serve", "--config", Self.shippedConfig, "--database", database, "--port", String(port)])
        let status = try await child.wait()
        await holder.shutdown()
        #expect(status == 1)
        #expect(child.stderr.contains("cannot listen on 127.0.0.1:\(port): address already in use"), "\(child.stderr)")
        #expect(child.stderr.contains("ss -ltnp 'sport = :\(port)'"))
        #expect(!child.stderr.contains("MHD_start_daemon"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func serveAnswersAndDrainsOnSIGTERM() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The stubs run as their own process, so a busy test process cannot slow their answers.
        let stubProcess = try Self.spawn(["--port", "0"], binary: ExecutableTests.binary("stub-providers"))
        let stubLine = try await stubProcess.waitForLog("listening on", onStandardOutput: true)
        let stubBase = "http://127.0.0.1:\(try #require(stubLine.split(separator: ":").last.flatMap { Int($0) }))"
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(StubProviders.brokerConfig(stubsAt: stubBase).serialized()).write(to: URL(fileURLWithPath: configPath))
        let child = try Self.spawn(
            ["serve", "--port", "0"],
            environment: [
                "BROKER_CONFIG": configPath, "BROKER_DATABASE": directory.appendingPathComponent("b.sqlite").path,
            ])
        let listening = try await child.waitForLog("\"listening\"")
        let port = try #require(JSONValue.parse(Array(listening.utf8))?["port"]?.intValue.map { String($0) })
        let client = try CurlHTTPClient()
        let base = "http://127.0.0.1:\(port)"
        let health = try await client.send(HTTPClientRequest(url: base + "/healthz"))
        #expect(health.status == 200)
        func stubCall(_ path: String, _ body: JSONValue? = nil) async throws -> JSONValue? {
            let response = try await client.send(
                HTTPClientRequest(method: body == nil ? "GET" : "POST", url: stubBase + path, body: body?.serialized() ?? []))
            return JSONValue.parse(response.body)
        }

        // A sign-in waiting on a slow Kakao is in flight when SIGTERM arrives: it completes, then the process exits 0.
        _ = try await stubCall("/control/kakao", ["fault": "slow", "delayMs": 700])
        let token = try #require(try await stubCall("/kakao/users", ["id": 901])?["accessToken"]?.stringValue)
        async let inFlight = client.send(
            HTTPClientRequest(
                method: "POST", url: base + "/v1/signin/kakao", headers: [("Content-Type", "application/json")],
                body: JSONValue.object(["accessToken": .string(token)]).serialized(), timeout: 30))
        // SIGTERM once the broker is waiting on Kakao, whatever the machine's load.
        let deadline = Date() + 30
        while try await stubCall("/control/stats")?["kakaoCalls"]?.intValue ?? 0 == 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        child.terminate()  // SIGTERM
        let response = try await inFlight
        #expect(response.status == 201, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(try await child.wait() == 0)
        #expect(child.stderr.contains("\"draining\""))
        #expect(child.stderr.contains("\"stopped\""))
        await client.shutdown()
        stubProcess.terminate()
        _ = try await stubProcess.wait()
    }

    @Test func sigtermTheMomentServeIsListeningStillDrainsAndExitsZero() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:1").serialized())
            .write(to: URL(fileURLWithPath: configPath))
        for _ in 0..<3 {
            let child = try Self.spawn(
                ["serve", "--port", "0", "--config", configPath,
                 "--database", directory.appendingPathComponent("b.sqlite").path])
            _ = try await child.waitForLog("\"listening\"")
            child.terminate()
            #expect(try await child.wait(seconds: 30) == 0)
            #expect(child.stderr.contains("\"stopped\""))
        }
    }

    /// The second signal must land within the broker's 5 s provider timeout of the hanging sign-in; beside the
    /// whole suite's load the test's own wake-ups can take longer, so CI runs it on its own after the others
    /// (`BROKER_TEST_DEFER_TIMED=1` skips it in the main run, as it does the hostile-client suite).
    @Test(.disabled(
            if: ProcessInfo.processInfo.environment["BROKER_TEST_DEFER_TIMED"] == "1",
            "BROKER_TEST_DEFER_TIMED=1: run on its own (swift test --filter ProcessTests)"))
    func aSecondSIGTERMDuringAHangingDrainEndsServeAtOnce() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        stubs.setKakaoFault(.hang)
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(stubs.brokerConfig().serialized()).write(to: URL(fileURLWithPath: configPath))
        let server = try Self.spawn(
            ["serve", "--port", "0", "--config", configPath, "--database", directory.appendingPathComponent("b.sqlite").path])
        let listening = try await server.waitForLog("\"listening\"")
        let port = try #require(JSONValue.parse(Array(listening.utf8))?["port"]?.intValue.map { String($0) })
        let client = try CurlHTTPClient()
        // A sign-in waits on a Kakao that never answers (the broker gives up after its 5 s timeout).
        let token = stubs.kakaoAccessToken(for: KakaoStubUser(id: 4242))
        let inFlight = Task {
            try? await client.send(
                HTTPClientRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)/v1/signin/kakao",
                    headers: [("Content-Type", "application/json")],
                    body: JSONValue.object(["accessToken": .string(token)]).serialized(), timeout: 30))
        }
        let deadline = Date() + 20
        while stubs.kakaoCallCount == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        server.terminate()
        _ = try await server.waitForLog("\"draining\"")
        server.terminate()
        // Ended by the signal (a finished drain exits 0 and logs "stopped"), before the sign-in was answered.
        #expect(try await server.wait(seconds: 30) == 128 + SIGTERM)
        #expect(!server.stderr.contains("\"stopped\""))
        #expect(await inFlight.value == nil)
        await client.shutdown()
        await stubs.stop()
    }

    @Test func killDashNineUnderSignInLoadLosesNoAcknowledgedAccount() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        let configPath = directory.appendingPathComponent("providers.json").path
        let database = directory.appendingPathComponent("b.sqlite").path
        try Data(stubs.brokerConfig().serialized()).write(to: URL(fileURLWithPath: configPath))
        let server = try Self.spawn(["serve", "--port", "0", "--config", configPath, "--database", database])
        let listening = try await server.waitForLog("\"listening\"")
        let port = try #require(JSONValue.parse(Array(listening.utf8))?["port"]?.intValue.map { String($0) })
        let tokens = try (0..<600).map { try stubs.idToken("google", claims: ["sub": .string("g-kill-\($0)")]) }
        let client = try CurlHTTPClient()

        // Eight connections sign new users in, one after another, until the broker is killed; every 201 is an
        // account the broker acknowledged, and so promised to keep.
        let progress = SignInProgress()
        let workers = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        while let index = progress.next(below: tokens.count) {
                            guard
                                let response = try? await client.send(
                                    HTTPClientRequest(
                                        method: "POST", url: "http://127.0.0.1:\(port)/v1/signin/google",
                                        headers: [("Content-Type", "application/json")],
                                        body: JSONValue.object(["idToken": .string(tokens[index])]).serialized(), timeout: 30))
                            else { return }  // the broker is gone
                            if response.status == 201, let uid = JSONValue.parse(response.body)?["user"]?["uid"]?.stringValue {
                                progress.acknowledge(subject: "g-kill-\(index)", uid: uid)
                            }
                        }
                    }
                }
            }
        }
        let deadline = Date() + 60
        while progress.acknowledgedCount < 150, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        server.terminate(SIGKILL)  // mid-load: sign-ins are in flight
        #expect(try await server.wait(seconds: 30) == 128 + SIGKILL)
        await workers.value
        await client.shutdown()
        await stubs.stop()

        let acknowledged = progress.acknowledged
        #expect(acknowledged.count >= 150)
        let store = try await SQLBrokerStore(database: try await SQLiteDatabase.open(path: database))
        for (subject, uid) in acknowledged {
            let account = try await store.account(provider: ProviderID("google"), subject: subject)
            #expect(account?.id.rawValue == uid, "acknowledged \(subject) as \(uid), found \(String(describing: account?.id))")
        }
    }

    @Test func aChildsExitIsSeenWhileAProcessStartedAfterItLives() async throws {
        // Foundation's `Process` missed this exit whenever the later process inherited its watch socket.
        let short = try ChildProcess("/bin/sh", ["-c", "sleep 0.3; echo done"], environment: [:])
        let long = try ChildProcess("/bin/sleep", ["60"], environment: [:])
        #expect(try await short.wait(seconds: 20) == 0)
        #expect(short.stdout == "done\n")
        #expect(long.isRunning)
        long.terminate()
        #expect(try await long.wait(seconds: 20) == 128 + SIGTERM)
    }
}

/// The `stub-providers` executable and `broker demo`, as a newcomer first runs them.
@Suite struct ExecutableTests {
    static func binary(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    @Test func stubProvidersServeJWKSAndStopOnSIGTERM() async throws {
        let child = try ProcessTests.spawn(["--port", "0"], binary: Self.binary("stub-providers"))
        let line = try await child.waitForLog("listening on", onStandardOutput: true)
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
        let client = try CurlHTTPClient()
        let jwks = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/google/jwks"))
        #expect(jwks.status == 200)
        #expect(JSONValue.parse(jwks.body)?["keys"]?.arrayValue?.first?["kid"] == "google-1")
        let minted = try await client.send(
            HTTPClientRequest(
                method: "POST", url: "http://127.0.0.1:\(port)/google/token", body: Array(#"{"claims":{"sub":"x"}}"#.utf8)))
        #expect(JSONValue.parse(minted.body)?["token"]?.stringValue?.split(separator: ".").count == 3)
        await client.shutdown()
        child.terminate()
        #expect(try await child.wait() == 0)
    }

    /// The first code block of docs/operations.md's "Local stand-ins for the providers, without Docker".
    static func stubRecipe() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let section = try #require(docs.range(of: "## Local stand-ins for the providers, without Docker"))
        let block = try #require(docs[section.upperBound...].range(of: "```sh\n"))
        let end = try #require(docs[block.upperBound...].range(of: "```"))
        return docs[block.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
    }

    /// The stub recipe runs as docs/operations.md prints it, pasted into a shell (issue 36, items 1 and 5): the
    /// second command finds the config the first wrote, the broker signs in with the stubs' tokens, and the
    /// service account puts a `customToken` in the answer. `swift run NAME` runs the built NAME (this test runs
    /// under `swift test`, which holds SwiftPM's build lock), `/tmp/` is a directory of this test's own, and
    /// `BROKER_PORT=0` spares port 8080; the text is otherwise run as it is. `stub-providers --help` prints it.
    @Test func theStubRecipeWorksAsPrinted() async throws {
        let recipe = try Self.stubRecipe()
        #expect(recipe.count == 2)
        let help = try ProcessTests.spawn(["--help"], binary: Self.binary("stub-providers"))
        #expect(try await help.wait() == 0)
        for line in recipe where !line.contains("--service-account") {
            #expect(help.stdout.contains(line), "stub-providers --help lacks \(line)")
        }
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bin = Self.binary("broker").deletingLastPathComponent().path
        let prelude = """
            swift() {
              [ "$1" = run ] || return 97
              local name=$2; shift 2
              if [ "$name" = broker ]; then exec "\(bin)/$name" "$@"; fi
              "\(bin)/$name" "$@"
            }
            """
        let script = recipe.joined(separator: "\n").replacingOccurrences(of: "/tmp/", with: directory.path + "/")
        let shell = try ProcessTests.spawn(
            ["-c", prelude + "\n" + script], binary: URL(fileURLWithPath: "/bin/bash"), environment: ["BROKER_PORT": "0"])
        var stubsPID: pid_t?
        defer { if let stubsPID { kill(stubsPID, SIGTERM) } }
        let listening: String
        do {
            listening = try await shell.waitForLog("\"listening\"")
        } catch {
            Issue.record("the broker did not start: \(shell.stdout)\n\(shell.stderr)")
            let killLine = shell.stdout.split(separator: "\n").first { $0.contains("stop them with: kill ") }
            stubsPID = killLine.flatMap { $0.split(separator: " ").last.flatMap { pid_t($0) } }
            return
        }
        let killLine = try #require(shell.stdout.split(separator: "\n").first { $0.contains("stop them with: kill ") })
        stubsPID = killLine.split(separator: " ").last.flatMap { pid_t($0) }
        #expect(stubsPID != nil)
        let stubsLine = try #require(shell.stdout.split(separator: "\n").first { $0.contains("listening on") })
        let stubs = try #require(stubsLine.split(separator: " ").last.map(String.init))
        let port = try #require(JSONValue.parse(Array(listening.utf8))?["port"]?.intValue)
        let client = try CurlHTTPClient()
        let minted = try await client.send(
            HTTPClientRequest(method: "POST", url: stubs + "/google/token", body: Array(#"{"claims":{"sub":"me"}}"#.utf8)))
        let token = try #require(JSONValue.parse(minted.body)?["token"]?.stringValue)
        let signIn = try await client.send(
            HTTPClientRequest(
                method: "POST", url: "http://127.0.0.1:\(port)/v1/signin/google",
                headers: [("Content-Type", "application/json")],
                body: JSONValue.object(["idToken": .string(token)]).serialized()))
        await client.shutdown()
        #expect(signIn.status == 201)
        #expect(JSONValue.parse(signIn.body)?["customToken"]?.stringValue?.split(separator: ".").count == 3)
        shell.terminate()
        #expect(try await shell.wait() == 0)
    }

    @Test func theDemoSignsInWithEveryProvider() async throws {
        // Polled, never blocking: a blocked cooperative thread stalls every other test on two cores.
        let child = try ProcessTests.spawn(["demo"])
        let status = try await child.wait(seconds: 60)
        let text = child.stdout
        #expect(status == 0)
        for step in ["Google: POST /v1/signin/google -> 201", "Apple (with nonce): POST /v1/signin/apple -> 201",
                     "Kakao (access token): POST /v1/signin/kakao -> 201",
                     "Naver (access token): POST /v1/signin/naver -> 201",
                     "LINE (ES256 ID token): POST /v1/signin/line -> 201", "POST /v1/signin/corp -> 201",
                     "POST /v1/token -> 200"] {
            #expect(text.contains(step))
        }
        #expect(text.contains("\"customToken\""))
    }

    /// A `broker` installed without `broker-demo` beside it (and outside a checkout) says where the demo is and
    /// starts nothing: `broker` itself does not hold the demo (issue 26, item 7).
    @Test func theDemoWithoutItsExecutableSaysWhereItIs() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lone = directory.appendingPathComponent("broker")
        // Copied by cp, not by this process: a child forked by a test running beside this one could otherwise
        // inherit the copy's open descriptor, and executing the copy would fail with "Text file busy".
        let copy = try ProcessTests.spawn(
            [ProcessTests.brokerBinary.path, lone.path], binary: URL(fileURLWithPath: "/bin/cp"))
        #expect(try await copy.wait(seconds: 30) == 0)
        let child = try ProcessTests.spawn(["demo"], binary: lone)
        #expect(try await child.wait(seconds: 30) == 1)
        #expect(child.stderr.contains("broker-demo, and it is not installed beside this broker"), "\(child.stderr)")
        #expect(child.stderr.contains("swift run broker-demo"))
        #expect(!child.stdout.contains("Stub providers"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["broker"])
    }
}

/// `broker admin` on the database of a running server.
@Suite struct AdminCLITests {
    @Test func theCLIWorksBesideARunningServer() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try StubProviders()
        let stubServer = MicroHTTPDServer()
        try stubs.start(server: stubServer)
        let configPath = directory.appendingPathComponent("providers.json").path
        let database = directory.appendingPathComponent("b.sqlite").path
        try Data(stubs.brokerConfig().serialized()).write(to: URL(fileURLWithPath: configPath))
        let server = try ProcessTests.spawn(
            ["serve", "--port", "0", "--config", configPath, "--database", database])
        let listening = try await server.waitForLog("\"listening\"")
        let port = try #require(JSONValue.parse(Array(listening.utf8))?["port"]?.intValue.map { String($0) })
        let client = try CurlHTTPClient()
        func signIn() async throws -> HTTPClientResponse {
            let token = try stubs.idToken("google", claims: ["sub": "g-cli", "email": "cli@example.com", "email_verified": true])
            return try await client.send(
                HTTPClientRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)/v1/signin/google",
                    headers: [("Content-Type", "application/json")],
                    body: JSONValue.object(["idToken": .string(token)]).serialized()))
        }
        let first = try await signIn()
        #expect(first.status == 201)
        let uid = try #require(JSONValue.parse(first.body)?["user"]?["uid"]?.stringValue)

        func admin(_ arguments: [String]) async throws -> (Int32, String, String) {
            let child = try ProcessTests.spawn(["admin"] + arguments + ["--config", configPath, "--database", database])
            let status = try await child.wait()
            return (status, child.stdout, child.stderr)
        }
        let (listStatus, listOutput, _) = try await admin(["users", "list", "--json"])
        #expect(listStatus == 0)
        #expect(JSONValue.parse(Array(listOutput.utf8))?["users"]?.arrayValue?.first?["uid"]?.stringValue == uid)
        let (tableStatus, table, _) = try await admin(["users", "list", "--provider", "google"])
        #expect(tableStatus == 0)
        #expect(table.contains("UID") && table.contains(uid) && table.contains("cli@example.com") && table.contains("1 user"))
        let (showStatus, shown, _) = try await admin(["users", "show", uid])
        #expect(showStatus == 0)
        #expect(shown.contains("identity") && shown.contains("g-cli"))

        let (disableStatus, _, _) = try await admin(["users", "disable", uid])
        #expect(disableStatus == 0)
        let refused = try await signIn()
        #expect(refused.status == 403)
        #expect(JSONValue.parse(refused.body)?["error"]?["code"] == "USER_DISABLED")
        let (enableStatus, _, _) = try await admin(["users", "enable", uid, "--json"])
        #expect(enableStatus == 0)
        #expect(try await signIn().status == 200)

        let (missingStatus, _, missingError) = try await admin(["users", "show", "nobody"])
        #expect(missingStatus != 0)
        #expect(missingError.contains("not found"))
        let (tokenStatus, _, tokenError) = try await admin(["custom-token", uid])
        #expect(tokenStatus != 0)
        #expect(tokenError.contains("service account"))
        let (keysStatus, keysBefore, _) = try await admin(["keys", "list"])
        #expect(keysStatus == 0)
        #expect(keysBefore.contains("signing") && keysBefore.contains("ES256"))
        let (rotateStatus, rotated, _) = try await admin(["keys", "rotate"])
        #expect(rotateStatus == 0)
        #expect(rotated.contains("retired, published"))
        #expect(rotated.split(separator: "\n").count == 3)  // header, the new signing key, the retired one

        let (usageStatus, _, usage) = try await admin(["users", "frobnicate"])
        #expect(usageStatus != 0)
        #expect(usage.contains("usage"))

        server.terminate()
        #expect(try await server.wait() == 0)
        await client.shutdown()
        await stubs.stop()
    }
}

/// The shared state of the kill -9 test's connections: the next token to send, and what was acknowledged.
final class SignInProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var issued = 0
    private var results: [(subject: String, uid: String)] = []

    /// The next token's index, or nil once all are taken.
    func next(below count: Int) -> Int? {
        lock.withLock {
            guard issued < count else { return nil }
            defer { issued += 1 }
            return issued
        }
    }

    func acknowledge(subject: String, uid: String) { lock.withLock { results.append((subject, uid)) } }
    var acknowledged: [(subject: String, uid: String)] { lock.withLock { results } }
    var acknowledgedCount: Int { lock.withLock { results.count } }
}
