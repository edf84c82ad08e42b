import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// What `check-config` and `serve` tell a user about a config file: where JSON breaks, every error at once with
/// suggestions, and the warnings for placeholders and mismatches.
@Suite struct ConfigValidationTests {
    struct SyntaxCase: Sendable, CustomTestStringConvertible {
        var name: String
        var text: [UInt8]
        var line: Int
        var column: Int
        var expected: String
        var found: String
        var testDescription: String { name }
    }

    static let syntaxCases: [SyntaxCase] = [
        SyntaxCase(
            name: "trailing comma in an object", text: Array("{\n  \"projectId\": \"p\",\n}".utf8), line: 3, column: 1,
            expected: "a field name in double quotes", found: "'}' (JSON allows no trailing comma)"),
        SyntaxCase(
            name: "trailing comma in a list", text: Array("{\"a\": [1, 2,\n ]}".utf8), line: 2, column: 2,
            expected: "a JSON value", found: "']' (JSON allows no trailing comma)"),
        SyntaxCase(
            name: "a comment", text: Array("{\n  // the project\n  \"projectId\": \"p\"\n}".utf8), line: 2, column: 3,
            expected: "a field name in double quotes", found: "'/' (JSON has no comments)"),
        SyntaxCase(
            name: "a byte-order mark", text: [0xEF, 0xBB, 0xBF] + Array("{}".utf8), line: 1, column: 1,
            expected: "a JSON value", found: "a byte-order mark (save the file as UTF-8 without a BOM)"),
        SyntaxCase(
            name: "an empty file", text: [], line: 1, column: 1, expected: "a JSON value", found: "an empty file"),
        SyntaxCase(
            name: "only whitespace", text: Array("\n\n".utf8), line: 3, column: 1, expected: "a JSON value",
            found: "the end of the file"),
        SyntaxCase(
            name: "a missing comma", text: Array("{\"a\": 1\n \"b\": 2}".utf8), line: 2, column: 2,
            expected: "',' or '}'",
            found: "'\"'"),
        SyntaxCase(
            name: "single quotes", text: Array("{'a': 1}".utf8), line: 1, column: 2,
            expected: "a field name in double quotes", found: "\"'\" (JSON strings take double quotes)"),
        SyntaxCase(
            name: "an unclosed object", text: Array("{\"a\": 1".utf8), line: 1, column: 8, expected: "',' or '}'",
            found: "the end of the file"),
        SyntaxCase(
            name: "columns count characters", text: Array("{\"서연\": tru}".utf8), line: 1, column: 8,
            expected: "a JSON value (true?)", found: "'t'"),
        SyntaxCase(
            name: "two documents", text: Array("{}\n{}".utf8), line: 2, column: 1,
            expected: "the end of the document after one JSON value", found: "'{'"),
    ]

    @Test(arguments: syntaxCases)
    func invalidJSONSaysWhereAndWhat(_ bad: SyntaxCase) throws {
        let error = try #require(JSONSyntaxError.firstError(in: bad.text))
        #expect(error == JSONSyntaxError(line: bad.line, column: bad.column, expected: bad.expected, found: bad.found))
        let refused = #expect(throws: ConfigError.self) { try BrokerConfig(parsing: bad.text, environment: [:], sections: FirebaseModule.configSections) }
        #expect(refused?.field == "(file)")
        #expect(refused?.message.hasPrefix("line \(bad.line), column \(bad.column): expected \(bad.expected)") == true)
    }

    @Test func validJSONHasNoSyntaxError() throws {
        #expect(JSONSyntaxError.firstError(in: try ConfigTests.shipped().serialized()) == nil)
        #expect(JSONSyntaxError.firstError(in: Array(" [1, {\"a\": null}] \n".utf8)) == nil)
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "config-validation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `document` into `directory` and validates it as `check-config` would.
    static func validate(
        _ document: JSONValue, in directory: URL, database: String? = nil, environment: [String: String] = [:],
        listenPort: Int? = 8080
    ) throws -> ConfigValidation {
        let path = directory.appendingPathComponent("providers.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: path))
        let sources = ConfigSources(
            configPath: path, database: database ?? directory.appendingPathComponent("b.sqlite").path)
        return ConfigValidation(
            sources: sources, environment: environment, context: ConfigTests.context, listenPort: listenPort,
            sections: FirebaseModule.configSections)
    }

    @Test func everyErrorIsReportedAtOnceWithSuggestions() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var document = try ConfigTests.shipped()
        document = ConfigTests.editing(document, ["providers", "google", "audience"], ["x.apps.googleusercontent.com"])
        document = ConfigTests.editing(document, ["providers", "google", "audiences"], nil)
        document = ConfigTests.editing(
            document, ["providers", "apple", "jwksURL"], "https://appleid.apple.com/auth/keys")
        document = ConfigTests.editing(document, ["providers", "kakao", "appId"], "abc")
        document = ConfigTests.editing(document, ["providers", "gogle"], ["enabled": true])
        document = ConfigTests.editing(document, ["isuer"], "http://127.0.0.1:8080")
        document = ConfigTests.editing(document, ["clockSkewSeconds"], -5)
        document = ConfigTests.editing(document, ["sessions", "idTokenTtlSeconds"], 5)
        let validation = try Self.validate(
            document, in: directory, environment: ["BROKER_ADMIN_TOKEN": "short"])
        let byField = Dictionary(validation.errors.map { ($0.field, $0.message) }) { first, _ in first }
        #expect(byField["isuer"] == "unknown field (did you mean \"issuer\"?)")
        #expect(byField["providers.google.audience"] == "unknown field (did you mean \"audiences\"?)")
        #expect(byField["providers.apple.jwksURL"] == "unknown field (did you mean \"jwksUrl\"?)")
        #expect(byField["providers.gogle"]?.hasPrefix("unknown provider") == true)
        #expect(byField["providers.gogle"]?.hasSuffix("(did you mean \"google\"?)") == true)
        #expect(byField["providers.google.audiences"] == "is required and must not be empty")
        #expect(byField["clockSkewSeconds"] != nil)
        #expect(byField["sessions.idTokenTtlSeconds"] != nil)
        #expect(byField["providers.kakao.appId"] != nil)
        #expect(byField["BROKER_ADMIN_TOKEN"] == "the token must be at least 16 characters")
        #expect(validation.errors.count == 9, "\(validation.errors.map(\.description).joined(separator: "\n"))")
        #expect(validation.config == nil)
        let thrown = #expect(throws: ConfigErrors.self) { try validation.validConfig() }
        #expect(thrown?.errors == validation.errors)
        #expect(thrown?.description.hasPrefix("9 errors:\n  ") == true)
    }

    /// A provider key that differs from a known one only in case (`"Kakao"`) is not a provider id: the refusal names
    /// the lower-case id, as docs/operations.md promises for case slips (issue 58).
    @Test(arguments: [("Kakao", "kakao"), ("GOOGLE", "google"), ("Line", "line")])
    func aProviderKeyWithACaseSlipGetsASuggestion(_ key: String, _ meant: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shipped = try ConfigTests.shipped()
        let entry = shipped["providers"]?[meant] ?? ["enabled": true]
        var document = ConfigTests.editing(shipped, ["providers", meant], nil)
        document = ConfigTests.editing(document, ["providers", key], entry)
        let validation = try Self.validate(document, in: directory)
        let message = validation.errors.first { $0.field == "providers.\(key)" }?.message
        #expect(message?.hasPrefix("is not a provider id") == true, "\(validation.errors)")
        #expect(message?.hasSuffix("(did you mean \"\(meant)\"?)") == true, "\(String(describing: message))")
        #expect(validation.config == nil)
    }

    @Test func anUnknownFieldFarFromAnyNameGetsNoSuggestion() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let validation = try Self.validate(
            ConfigTests.editing(try ConfigTests.shipped(), ["unexpected"], 1), in: directory)
        #expect(validation.errors == [ConfigError(field: "unexpected", "unknown field")])
    }

    /// `mfa.totp` seals its secrets with the encryption key: without one, check-config refuses it (contract 14).
    @Test func secondFactorsNeedTheEncryptionKey() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = ConfigTests.editing(
            try ConfigTests.shipped(), ["mfa"], ["totp": ["enabled": true, "digits": 8]])
        let refused = try Self.validate(document, in: directory)
        #expect(refused.errors.map(\.field) == ["mfa.totp.enabled"])
        #expect(refused.errors.first?.message.contains("BROKER_ENCRYPTION_KEY") == true)
        let key = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="  // 32 bytes
        let accepted = try Self.validate(document, in: directory, environment: ["BROKER_ENCRYPTION_KEY": key])
        #expect(accepted.errors.isEmpty)
        #expect(
            accepted.config?.mfa == SecondFactorSettings(totpEnabled: true, issuer: nil, digits: 8, periodSeconds: 30))
        let bad = ConfigTests.editing(try ConfigTests.shipped(), ["mfa"], ["totp": ["digits": 9, "sms": true]])
        let fields = try Self.validate(bad, in: directory, environment: ["BROKER_ENCRYPTION_KEY": key]).errors.map(
            \.field)
        #expect(!fields.isEmpty && fields.allSatisfy { $0.hasPrefix("mfa.totp") })
    }

    @Test func theDatabaseFolderMustExist() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("no-such-folder/b.sqlite").path
        let validation = try Self.validate(try ConfigTests.shipped(), in: directory, database: missing)
        #expect(validation.errors.map(\.field) == ["database"])
        #expect(validation.errors.first?.message.contains("does not exist") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("no-such-folder").path))
    }

    @Test func theShippedConfigWarnsOfEveryPlaceholder() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let validation = try Self.validate(try ConfigTests.shipped(), in: directory)
        #expect(validation.errors.isEmpty)
        #expect(validation.config != nil)
        let fields = validation.warnings.map(\.field)
        #expect(fields.filter { $0 == "providers.google.audiences" }.count == 2)
        #expect(fields.filter { $0 == "providers.apple.audiences" }.count == 1)
        #expect(fields.filter { $0 == "providers.kakao.audiences" }.count == 2)
        #expect(fields.contains("providers.kakao.appId"))
        #expect(validation.warnings.count == 6)
        #expect(validation.warnings.allSatisfy { $0.message.contains("placeholder") })
    }

    /// Errors and warnings are one type, told apart by severity (issue 26, item 7): a config with both keeps each
    /// in its list, and a warning never equals the error with the same words.
    @Test func errorsAndWarningsAreOneTypeToldApartBySeverity() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("no-such-folder/b.sqlite").path
        let validation = try Self.validate(try ConfigTests.shipped(), in: directory, database: missing)
        #expect(validation.errors.map(\.field) == ["database"])
        #expect(validation.errors.allSatisfy { $0.severity == .error })
        #expect(validation.warnings.count == 6)
        #expect(validation.warnings.allSatisfy { $0.severity == .warning })
        #expect(throws: ConfigErrors.self) { try validation.validConfig() }
        #expect(ConfigError.warning(field: "issuer", "x") != ConfigError(field: "issuer", "x"))
        #expect(ConfigError(field: "issuer", "x").severity == .error)
        #expect(ConfigError.warning(field: "issuer", "x").description == "issuer: x")
    }

    @Test func realClientIDsGiveNoWarning() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9")
        let validation = try Self.validate(stubs, in: directory)
        #expect(validation.errors.isEmpty)
        #expect(validation.warnings.isEmpty, "\(validation.warnings)")
    }

    struct PortCase: Sendable, CustomTestStringConvertible {
        var issuer: String
        var port: Int?
        var warns: Bool
        var testDescription: String { "\(issuer) on \(port.map(String.init) ?? "-")" }
    }

    static let portCases: [PortCase] = [
        PortCase(issuer: "http://127.0.0.1:8080", port: 19000, warns: true),
        PortCase(issuer: "http://localhost:8080", port: 19000, warns: true),
        PortCase(issuer: "http://127.0.0.1", port: 8080, warns: true),
        PortCase(issuer: "http://127.0.0.1:8080", port: 8080, warns: false),
        PortCase(issuer: "http://127.0.0.1:19000", port: 19000, warns: false),
        PortCase(issuer: "http://127.0.0.1:8080", port: 0, warns: false),
        PortCase(issuer: "http://127.0.0.1:8080", port: nil, warns: false),
        PortCase(issuer: "https://auth.example.com", port: 19000, warns: false),
    ]

    /// A loopback issuer naming another port than the broker's: the broker keeps the issuer and warns.
    @Test(arguments: portCases)
    func aLoopbackIssuerOnAnotherPortWarns(_ port: PortCase) throws {
        let config = try BrokerConfig(
            parsing: ConfigTests.editing(try ConfigTests.shipped(), ["issuer"], .string(port.issuer)).serialized(),
            environment: [:], sections: FirebaseModule.configSections)
        let warnings = ConfigValidation.issuerWarnings(config, listenPort: port.port)
        #expect(warnings.map(\.field) == (port.warns ? ["issuer"] : []))
        if port.warns, let listen = port.port {
            #expect(warnings.first?.message.contains("listens on \(listen)") == true)
        }
    }

    @Test func aServiceAccountOfAnotherProjectWarns() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let account = try TestServiceAccount.write(into: directory)  // project_id "stub-project"
        var document = StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9", serviceAccountFile: account)
        let matching = try Self.validate(document, in: directory)
        #expect(matching.errors.isEmpty)
        #expect(matching.warnings.isEmpty)
        document = ConfigTests.editing(document, ["projectId"], "my-other-project")
        let other = try Self.validate(document, in: directory)
        #expect(other.errors.isEmpty)
        #expect(other.warnings.map(\.field) == ["projectId"])
        #expect(other.warnings.first?.message.contains("\"stub-project\"") == true)
    }

    @Test func anUnreadableServiceAccountIsAnError() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = StubProviders.brokerConfig(
            stubsAt: "http://127.0.0.1:9", serviceAccountFile: directory.appendingPathComponent("none.json").path)
        let validation = try Self.validate(document, in: directory)
        #expect(validation.errors.map(\.field) == ["firebase.serviceAccountFile"])
    }

    @Test(
        arguments: [("audiance", "audiences"), ("ISSUER", "issuer"), ("jwks", nil), ("zzzzzz", nil)]
            as [(String, String?)])
    func suggestions(_ name: String, _ expected: String?) {
        #expect(ConfigIssues.nearest(to: name, among: ["audiences", "issuer", "jwksUrl"]) == expected)
    }
}
