import BrokerCore
import BrokerFirebase
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// `--help`, `-h` and `--version` on every command, `broker admin audit`, and `stub-providers --write-config`.
/// Serialized: each case starts a process, and a few dozen at once would slow the timing-sensitive suites.
@Suite(.serialized) struct CLIUsageTests {
    struct HelpCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var usage: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let helpCases: [HelpCase] = [
        HelpCase(arguments: ["--help"], usage: "usage: broker serve"),
        HelpCase(arguments: ["-h"], usage: "usage: broker serve"),
        HelpCase(arguments: ["help"], usage: "usage: broker serve"),
        HelpCase(arguments: ["serve", "--help"], usage: "usage: broker serve"),
        HelpCase(arguments: ["serve", "--port", "0", "-h"], usage: "usage: broker serve"),
        HelpCase(arguments: ["check-config", "--help"], usage: "usage: broker check-config"),
        HelpCase(arguments: ["check-config", "-h"], usage: "usage: broker check-config"),
        HelpCase(arguments: ["demo", "--help"], usage: "usage: broker demo"),
        HelpCase(arguments: ["migrate-sqlite", "-h"], usage: "usage: broker migrate-sqlite"),
        HelpCase(arguments: ["admin", "--help"], usage: "usage: broker admin users list"),
        HelpCase(arguments: ["admin", "users", "list", "--help"], usage: "usage: broker admin users list"),
        HelpCase(arguments: ["admin", "users", "list", "--json", "-h"], usage: "usage: broker admin users list"),
        HelpCase(arguments: ["admin", "users", "show", "--help"], usage: "usage: broker admin users show UID"),
        HelpCase(arguments: ["admin", "users", "delete", "u1", "-h"], usage: "usage: broker admin users delete UID"),
        HelpCase(arguments: ["admin", "users", "unlink", "--help"], usage: "usage: broker admin users unlink UID PROVIDER"),
        HelpCase(arguments: ["admin", "custom-token", "-h"], usage: "usage: broker admin custom-token UID"),
        HelpCase(arguments: ["admin", "keys", "rotate", "--help"], usage: "usage: broker admin keys list|rotate"),
        HelpCase(arguments: ["admin", "audit", "--help"], usage: "usage: broker admin audit"),
        HelpCase(arguments: ["admin", "import", "firebase", "users.json", "-h"], usage: "usage: broker admin import firebase FILE"),
        HelpCase(arguments: ["admin", "export", "users.json", "--help"], usage: "usage: broker admin export FILE"),
    ]

    /// Help prints the command's usage on stdout, exits 0, and does nothing else: no database is created, no
    /// server starts (the process exits by itself), no user is listed.
    @Test(arguments: helpCases)
    func everyCommandAnswersHelp(_ help: HelpCase) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let child = try ProcessTests.spawn(
            help.arguments, environment: ["BROKER_DATABASE": database, "BROKER_CONFIG": ProcessTests.shippedConfig])
        #expect(try await child.wait(seconds: 30) == 0)
        #expect(child.stdout.hasPrefix(help.usage), "\(child.stdout)")
        #expect(child.stderr.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    /// `-h` as a flag's value is that value, not a request for help.
    @Test func aFlagValueIsNotTakenForHelp() async throws {
        let child = try ProcessTests.spawn(["serve", "--host", "-h", "--port", "99999"])
        #expect(try await child.wait(seconds: 30) == 1)
        #expect(child.stdout.isEmpty)
        #expect(child.stderr.contains("--port: must be a port number"))
    }

    @Test func versions() async throws {
        let broker = try ProcessTests.spawn(["--version"])
        #expect(try await broker.wait(seconds: 30) == 0)
        #expect(broker.stdout == "broker \(BrokerVersion.current)\n")
        let stubs = try ProcessTests.spawn(["--version"], binary: ExecutableTests.binary("stub-providers"))
        #expect(try await stubs.wait(seconds: 30) == 0)
        #expect(stubs.stdout == "stub-providers \(BrokerVersion.current)\n")
    }

    @Test(arguments: ["--help", "-h"])
    func stubProvidersAnswerHelpWithoutServing(_ flag: String) async throws {
        let child = try ProcessTests.spawn(["--port", "0", flag], binary: ExecutableTests.binary("stub-providers"))
        #expect(try await child.wait(seconds: 30) == 0)
        #expect(child.stdout.hasPrefix("usage: stub-providers"))
        #expect(!child.stdout.contains("listening"))
        // The minting and fault endpoints docs/operations.md sends readers to (issue 58).
        for endpoint in StubProviders.controlEndpoints {
            #expect(child.stdout.contains("\(endpoint.method) \(endpoint.path) "), "\(endpoint.path)")
        }
    }

    /// Every endpoint `stub-providers --help` lists is served: none answers 404 (an empty body is refused with 400
    /// where one is needed, which is an answer of that endpoint).
    @Test func everyListedStubEndpointIsServed() async throws {
        let stubs = try StubProviders()
        let port = try stubs.start(server: MicroHTTPDServer())
        let client = try CurlHTTPClient()
        for endpoint in StubProviders.controlEndpoints {
            for path in endpoint.paths {
                let response = try await client.send(
                    HTTPClientRequest(
                        method: endpoint.method, url: "http://127.0.0.1:\(port)\(path)",
                        headers: [("Content-Type", "application/json")],
                        body: endpoint.method == "POST" ? Array(#"{"provider": "google"}"#.utf8) : []))
                #expect(response.status != 404 && response.status != 405, "\(endpoint.method) \(path): \(response.status)")
            }
        }
        await client.shutdown()
        await stubs.stop()
    }

    /// A flag the command does not take is refused (exit 2, as every misuse, the command's usage printed), never
    /// ignored: an import's hash flags given to `serve` do not start a server, a listing's filter given to `audit`
    /// filters nothing.
    @Test(arguments: [
        ["serve", "--hash-key", "c2VjcmV0", "--port", "0"], ["check-config", "--dry-run"], ["demo", "--json"],
        ["admin", "audit", "--email", "a@example.com"], ["admin", "users", "list", "--claims", "{}"],
        ["admin", "users", "show", "u1", "--map-provider", "oidc.kakao=kakao"], ["admin", "outbox", "--dry-run"],
    ])
    func aFlagTheCommandDoesNotTakeIsRefused(_ arguments: [String]) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let child = try ProcessTests.spawn(
            arguments + ["--config", ProcessTests.shippedConfig, "--database", database].filter { _ in arguments[0] != "demo" })
        #expect(try await child.wait(seconds: 60) == 2)
        #expect(child.stderr.contains("is not an option of broker \(arguments[0])"), "\(child.stderr)")
        #expect(child.stderr.contains("usage: broker \(arguments[0])"), "\(child.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func anUnknownCommandIsAUsageError() async throws {
        let child = try ProcessTests.spawn(["frobnicate", "--help"])
        #expect(try await child.wait(seconds: 30) == 2)
        #expect(child.stdout.isEmpty)
        #expect(child.stderr.contains("unknown command \"frobnicate\""))
    }

    struct MisuseCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        /// The first line of standard error.
        var problem: String
        /// What the usage printed after it starts with.
        var usage: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    /// The typos of issue 58: each names the word and the nearest known one, prints the usage of the command it
    /// was meant for, exits 2 and opens nothing.
    static let misuses: [MisuseCase] = [
        MisuseCase(arguments: ["serv"], problem: "broker: unknown command \"serv\" (did you mean \"serve\"?)", usage: "Run `broker --help`"),
        MisuseCase(
            arguments: ["admin", "user", "list"], problem: "broker: unknown broker admin command \"user\" (did you mean \"users\"?)",
            usage: "usage: broker admin users list"),
        MisuseCase(
            arguments: ["admin", "users", "lst"],
            problem: "broker: unknown broker admin users command \"lst\" (did you mean \"list\"?)", usage: "usage: broker admin users list"),
        MisuseCase(arguments: ["admin", "users", "show"], problem: "broker: broker admin users show needs UID", usage: "usage: broker admin users show UID"),
        MisuseCase(
            arguments: ["check-config", "--databse", "x.sqlite"], problem: "broker: unknown option --databse (did you mean \"--database\"?)",
            usage: "usage: broker check-config"),
        MisuseCase(
            arguments: ["serve", "--databse=x.sqlite"], problem: "broker: unknown option --databse (did you mean \"--database\"?)",
            usage: "usage: broker serve"),
        MisuseCase(
            arguments: ["admin", "audit", "--limt", "5"], problem: "broker: unknown option --limt (did you mean \"--limit\"?)",
            usage: "usage: broker admin audit"),
        MisuseCase(arguments: ["serve", "--port"], problem: "broker: --port needs a value", usage: "usage: broker serve"),
    ]

    @Test(arguments: misuses)
    func aTypoIsNamedWithTheNearestWord(_ misuse: MisuseCase) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let child = try ProcessTests.spawn(
            misuse.arguments, environment: ["BROKER_DATABASE": directory.appendingPathComponent("b.sqlite").path])
        #expect(try await child.wait(seconds: 30) == 2)
        #expect(child.stdout.isEmpty)
        let lines = child.stderr.split(separator: "\n", maxSplits: 1).map(String.init)
        #expect(lines.first == misuse.problem, "\(child.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix(misuse.usage) == true, "\(child.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// `stub-providers --write-config FILE` writes a config the broker accepts, pointing at the running stubs.
    @Test func stubProvidersWriteABrokerConfig() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("stub-broker.json").path
        let stubs = try ProcessTests.spawn(
            ["--port", "0", "--write-config", configPath], binary: ExecutableTests.binary("stub-providers"))
        let line = try await stubs.waitForLog("broker config:", onStandardOutput: true)
        #expect(line.contains(configPath))
        let document = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: configPath)))))
        let jwksURL = try #require(document["providers"]?["google"]?["jwksUrl"]?.stringValue)
        #expect(jwksURL.hasPrefix("http://127.0.0.1:"))
        let client = try CurlHTTPClient()
        let jwks = try await client.send(HTTPClientRequest(url: jwksURL))
        await client.shutdown()
        #expect(jwks.status == 200)
        let check = try ProcessTests.spawn(["check-config", "--config", configPath])
        #expect(try await check.wait(seconds: 60) == 0, "\(check.stderr)")
        #expect(check.stdout.contains("OK"))
        stubs.terminate()
        #expect(try await stubs.wait(seconds: 30) == 0)
    }

    /// `broker admin audit` lists the store's events newest first, with the admin API's uid and limit filters.
    @Test func adminAuditListsAndFilters() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let sqlite = try SQLiteDatabase(path: database)
        let store = try await SQLBrokerStore(database: sqlite)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (offset, uid) in ["u-a", "u-b", "u-a", "u-a"].enumerated() {
            try await store.appendAuditEvent(
                AuditEvent(
                    time: start + Double(offset), uid: AccountID(uid), action: AuditAction(rawValue: "signin"), provider: "google", actor: .user,
                    requestID: "req-\(offset)"))
        }
        await sqlite.close()

        func audit(_ arguments: [String]) async throws -> (Int32, String, String) {
            let child = try ProcessTests.spawn(
                ["admin", "audit"] + arguments + ["--config", ProcessTests.shippedConfig, "--database", database])
            let status = try await child.wait(seconds: 60)
            return (status, child.stdout, child.stderr)
        }
        let (allStatus, all, _) = try await audit(["--json"])
        #expect(allStatus == 0)
        let events = try #require(JSONValue.parse(Array(all.utf8))?["events"]?.arrayValue)
        #expect(events.compactMap { $0["requestId"]?.stringValue } == ["req-3", "req-2", "req-1", "req-0"])

        let (oneStatus, one, _) = try await audit(["--uid", "u-a", "--limit", "2", "--json"])
        #expect(oneStatus == 0)
        let filtered = try #require(JSONValue.parse(Array(one.utf8))?["events"]?.arrayValue)
        #expect(filtered.compactMap { $0["requestId"]?.stringValue } == ["req-3", "req-2"])
        #expect(filtered.allSatisfy { $0["uid"] == "u-a" })

        let (tableStatus, table, _) = try await audit(["--uid", "u-b"])
        #expect(tableStatus == 0)
        let rows = table.split(separator: "\n")
        #expect(rows.first?.hasPrefix("TIME") == true)
        #expect(rows.count == 3)  // header, one event, the count
        #expect(table.contains("req-1") && table.contains("1 event"))

        for bad in ["0", "1001", "ten"] {
            let (status, out, error) = try await audit(["--limit", bad])
            #expect(status != 0)
            #expect(out.isEmpty)
            #expect(error.contains("--limit must be a whole number from 1 to 1000"))
        }
    }

    /// `broker demo` prints no address once nothing answers there; with --keep-running what it prints answers.
    @Test func theDemoPrintsOnlyURLsThatAnswer() async throws {
        let once = try ProcessTests.spawn(["demo"])
        #expect(try await once.wait(seconds: 60) == 0)
        #expect(once.stdout.contains("POST /v1/token -> 200"))
        #expect(!once.stdout.contains("http://127.0.0.1"), "\(once.stdout)")

        let kept = try ProcessTests.spawn(["demo", "--keep-running"])
        _ = try await kept.waitForLog("Still answering until Ctrl-C", onStandardOutput: true, seconds: 60)
        let urls = kept.stdout.split(separator: "\n").compactMap { line -> String? in
            let text = line.trimmingCharacters(in: .whitespaces)
            return text.hasPrefix("http://127.0.0.1:") ? text : nil
        }
        #expect(urls.count == 5)  // four of the broker's and stubs' endpoints and a fresh reset link
        let client = try CurlHTTPClient()
        for url in urls {
            let response = try await client.send(HTTPClientRequest(url: url))
            #expect(response.status == 200, "\(url)")
        }
        await client.shutdown()
        #expect(kept.isRunning)
        kept.terminate()
        #expect(try await kept.wait(seconds: 30) == 0)
    }
}
