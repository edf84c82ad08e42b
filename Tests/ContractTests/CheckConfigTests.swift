import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// `broker check-config` passes exactly what `broker serve` accepts, and says everything at once.
/// Serialized: each case starts a process.
@Suite(.serialized) struct CheckConfigTests {
    struct RefusalCase: Sendable, CustomTestStringConvertible {
        var name: String
        var environment: [String: String]
        var database: String?
        var field: String
        /// What the refusal says after the field, when the case checks it.
        var message: String? = nil
        var testDescription: String { name }
    }

    static let refusals: [RefusalCase] = [
        RefusalCase(name: "a short admin token", environment: ["BROKER_ADMIN_TOKEN": "short"], field: "BROKER_ADMIN_TOKEN"),
        RefusalCase(
            name: "an unreadable admin token file", environment: ["BROKER_ADMIN_TOKEN_FILE": "/nonexistent/token"],
            field: "BROKER_ADMIN_TOKEN_FILE"),
        RefusalCase(name: "a database folder that does not exist", environment: [:], database: "missing/b.sqlite", field: "database"),
        // PostgreSQL URLs (issue 58): refused by the driver's own check before anything connects, by both commands.
        RefusalCase(
            name: "a pool size that is not a number", environment: [:], database: "postgres://127.0.0.1:1/b?poolSize=abc",
            field: "database", message: "database URL: poolSize must be a whole number from 1 to 100"),
        RefusalCase(
            name: "a search path with a semicolon", environment: [:], database: "postgres://127.0.0.1:1/b?searchPath=a;b",
            field: "database", message: "database URL: searchPath must be"),
        RefusalCase(
            name: "a parameter name with a case slip", environment: [:], database: "postgres://127.0.0.1:1/b?poolsize=4",
            field: "database", message: "database URL: unknown parameter \"poolsize\" (did you mean \"poolSize\"?)"),
        RefusalCase(
            name: "a misspelt libpq parameter", environment: [:], database: "postgres://127.0.0.1:1/b?sslmod=require",
            field: "database", message: "database URL: unknown parameter \"sslmod\" (did you mean \"sslmode\"?)"),
        RefusalCase(
            name: "an IPv6 host without its closing bracket", environment: [:], database: "postgres://[::1:5432/b",
            field: "database", message: "invalid database URL"),
        RefusalCase(
            name: "a port that is not a number", environment: [:], database: "postgres://127.0.0.1:abc/b",
            field: "database", message: "database URL: the port \"abc\" is not a number from 1 to 65535"),
        RefusalCase(
            name: "a second host's port that is not a number", environment: [:],
            database: "postgresql://u:secret@h1:5432,h2:x/b", field: "database",
            message: "database URL: the port \"x\" is not a number from 1 to 65535"),
    ]

    /// Both commands refuse the same settings, and neither creates the database.
    @Test(arguments: refusals, ["check-config", "serve"])
    func bothCommandsRefuseTheSame(_ refusal: RefusalCase, _ command: String) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = refusal.database.map { $0.hasPrefix("postgres") ? $0 : directory.appendingPathComponent($0).path }
            ?? directory.appendingPathComponent("b.sqlite").path
        let child = try ProcessTests.spawn(
            [command, "--config", ProcessTests.shippedConfig, "--database", database, "--port", "0"],
            environment: refusal.environment)
        #expect(try await child.wait(seconds: 60) == 1)
        #expect(child.stderr.contains("bad configuration: \(refusal.field): \(refusal.message ?? "")"), "\(child.stderr)")
        #expect(!child.stderr.contains("secret"))
        #expect(!child.stdout.contains("OK"))
        #expect(!FileManager.default.fileExists(atPath: database))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// A config file that cannot be read says why (issue 58), for both commands, and nothing is created.
    @Test(arguments: ["check-config", "serve"])
    func anUnreadableConfigSaysWhy(_ command: String) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let missing = directory.appendingPathComponent("nope.json").path
        let child = try ProcessTests.spawn([command, "--config", missing, "--database", database, "--port", "0"])
        #expect(try await child.wait(seconds: 60) == 1)
        #expect(
            child.stderr.contains("(file): cannot read \(missing): no such file (looked in \(directory.path);"),
            "\(child.stderr)")
        let folder = try ProcessTests.spawn([command, "--config", directory.path, "--database", database, "--port", "0"])
        #expect(try await folder.wait(seconds: 60) == 1)
        #expect(folder.stderr.contains("cannot read \(directory.path): it is a folder, not a file"), "\(folder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    /// The README quotes what check-config prints for the shipped file (issue 58): that is what it prints.
    @Test func theReadmesSampleOutputIsWhatItPrints() async throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: ProcessTests.shippedConfig).deletingLastPathComponent()
                .appendingPathComponent("README.md"), encoding: .utf8)
        let quoted = try #require(readme.firstMatch(of: try Regex(#"`(\./providers\.json: OK [^`]*)`"#))?.output[1].substring)
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let child = try ProcessTests.spawn([
            "check-config", "--config", ProcessTests.shippedConfig, "--database",
            directory.appendingPathComponent("b.sqlite").path,
        ])
        #expect(try await child.wait(seconds: 60) == 0)
        let expected = quoted.replacingOccurrences(of: "./providers.json", with: ProcessTests.shippedConfig)
        #expect(child.stdout == expected + "\n", "\(child.stdout)")
        let warnings = child.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(quoted.hasSuffix("; \(warnings.count) warnings)"))
    }

    @Test func everyErrorIsPrintedAtOnce() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var document = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: ProcessTests.shippedConfig)))))
        document = ConfigEdit.set(document, ["providers", "google", "audience"], ["x"])
        document = ConfigEdit.set(document, ["providers", "apple", "audiences"], [])
        document = ConfigEdit.set(document, ["clockSkewSeconds"], 9999)
        let path = directory.appendingPathComponent("bad.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: path))
        let child = try ProcessTests.spawn(["check-config", "--config", path])
        #expect(try await child.wait(seconds: 60) == 1)
        let text = child.stderr
        #expect(text.contains("bad configuration: 3 errors:"), "\(text)")
        #expect(text.contains("  providers.google.audience: unknown field (did you mean \"audiences\"?)"))
        #expect(text.contains("  providers.apple.audiences: must not be empty"))
        #expect(text.contains("  clockSkewSeconds: must be a whole number from 0 to 600"))
    }

    @Test func invalidJSONSaysLineAndColumn() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.json").path
        try Data("{\n  \"projectId\": \"p\",\n}\n".utf8).write(to: URL(fileURLWithPath: path))
        let child = try ProcessTests.spawn(["check-config", "--config", path])
        #expect(try await child.wait(seconds: 60) == 1)
        #expect(
            child.stderr.contains(
                "\(path): line 3, column 1: expected a field name in double quotes, found '}' (JSON allows no trailing comma)"),
            "\(child.stderr)")
    }

    /// The shipped config is valid but full of placeholders, and an issuer for port 8080 warns at `--port 19000`.
    @Test func warningsArePrintedAndTheCheckStillPasses() async throws {
        let child = try ProcessTests.spawn(["check-config", "--config", ProcessTests.shippedConfig, "--port", "19000"])
        #expect(try await child.wait(seconds: 60) == 0)
        #expect(child.stdout.contains("OK") && child.stdout.contains("issuer http://127.0.0.1:8080") && child.stdout.contains("7 warnings"))
        #expect(child.stderr.contains("warning: providers.google.audiences: \"IOS_CLIENT_ID.apps.googleusercontent.com\" is a placeholder"))
        #expect(child.stderr.contains("warning: issuer: http://127.0.0.1:8080 names port 8080 but the broker listens on 19000"))
    }
}

/// Edits a JSON document at a path of keys.
enum ConfigEdit {
    static func set(_ document: JSONValue, _ path: [String], _ value: JSONValue?) -> JSONValue {
        guard let key = path.first, case .object(var members) = document else { return document }
        members[key] = path.count == 1 ? value : set(members[key] ?? .object([:]), Array(path.dropFirst()), value)
        return .object(members)
    }
}
