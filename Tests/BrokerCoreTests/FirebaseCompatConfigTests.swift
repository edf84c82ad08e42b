import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The `firebaseCompat` section of `providers.json` (contract section 11).
@Suite struct FirebaseCompatConfigTests {
    static func config(_ section: JSONValue?) throws -> BrokerConfig {
        try ServerConfigTests.config(section.map { [(["firebaseCompat"], $0)] } ?? [])
    }

    @Test func defaultsWhenAbsent() throws {
        let settings = try Self.config(nil).firebaseCompat
        #expect(settings == .defaults)
        #expect(!settings.enabled)
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 9099)
        #expect(!settings.allowRemote)
        #expect(!settings.acceptUnsignedCustomTokens)
        #expect(settings.emailEnumerationProtection)
        #expect(settings.allowedOrigins.isEmpty)
        #expect(settings.warnings.isEmpty)
    }

    @Test func allowedOriginsAreExactOrigins() throws {
        let origins = ["https://app.example.com", "http://192.168.1.20:3000"]
        let settings = try Self.config(["allowedOrigins": .array(origins.map(JSONValue.string))]).firebaseCompat
        #expect(settings.allowedOrigins == origins)
    }

    @Test func settingsAreRead() throws {
        let settings = try Self.config([
            "enabled": true, "host": "localhost", "port": 9100, "acceptUnsignedCustomTokens": true,
            "emailEnumerationProtection": false,
        ]).firebaseCompat
        #expect(
            settings
                == FirebaseCompatSettings(
                    enabled: true, host: "localhost", port: 9100, allowRemote: false, acceptUnsignedCustomTokens: true,
                    emailEnumerationProtection: false))
        #expect(settings.warnings.map(\.field) == ["firebaseCompat.acceptUnsignedCustomTokens"])
    }

    @Test func aRemoteHostNeedsAllowRemoteAndIsWarnedOf() throws {
        let settings = try Self.config(["enabled": true, "host": "0.0.0.0", "allowRemote": true]).firebaseCompat
        #expect(settings.host == "0.0.0.0")
        #expect(settings.allowRemote)
        #expect(settings.warnings.map(\.field) == ["firebaseCompat.allowRemote"])
        // Off: nothing listens, nothing to warn of.
        #expect(try Self.config(["host": "0.0.0.0", "allowRemote": true]).firebaseCompat.warnings.isEmpty)
    }

    @Test(arguments: ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1"])
    func loopbackHostsAreLoopback(_ host: String) {
        #expect(FirebaseCompatSettings.isLoopback(host))
    }

    @Test(arguments: ["0.0.0.0", "10.0.0.1", "127.0.0.256", "127.0.0", "127.0.0.1.5", "example.com", "::", "128.0.0.1"])
    func otherHostsAreNot(_ host: String) {
        #expect(!FirebaseCompatSettings.isLoopback(host))
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        var section: JSONValue
        var field: String
        var testDescription: String { "\(section) -> \(field)" }
    }

    static let badCases: [BadCase] = [
        BadCase(section: "on", field: "firebaseCompat"),
        BadCase(section: ["enable": true], field: "firebaseCompat.enable"),
        BadCase(section: ["enabled": "yes"], field: "firebaseCompat.enabled"),
        BadCase(section: ["host": "0.0.0.0"], field: "firebaseCompat.host"),
        BadCase(section: ["host": "192.168.1.10", "enabled": true], field: "firebaseCompat.host"),
        BadCase(section: ["host": ""], field: "firebaseCompat.host"),
        BadCase(section: ["host": "a/b", "allowRemote": true], field: "firebaseCompat.host"),
        BadCase(section: ["port": 70000], field: "firebaseCompat.port"),
        BadCase(section: ["port": -1], field: "firebaseCompat.port"),
        BadCase(section: ["port": "9099"], field: "firebaseCompat.port"),
        BadCase(
            section: ["allowRemote": true, "acceptUnsignedCustomTokens": true],
            field: "firebaseCompat.acceptUnsignedCustomTokens"),
        BadCase(section: ["emailEnumerationProtection": 1], field: "firebaseCompat.emailEnumerationProtection"),
        BadCase(section: ["allowedOrigins": "https://app.example.com"], field: "firebaseCompat.allowedOrigins"),
        BadCase(section: ["allowedOrigins": ["https://app.example.com/"]], field: "firebaseCompat.allowedOrigins"),
        BadCase(section: ["allowedOrigins": ["https://app.example.com/login"]], field: "firebaseCompat.allowedOrigins"),
        BadCase(section: ["allowedOrigins": ["*"]], field: "firebaseCompat.allowedOrigins"),
        BadCase(section: ["allowedOrigins": ["app.example.com"]], field: "firebaseCompat.allowedOrigins"),
        BadCase(section: ["allowedOrigins": ["https://App.example.com"]], field: "firebaseCompat.allowedOrigins"),
        BadCase(section: ["allowedOrigins": [""]], field: "firebaseCompat.allowedOrigins"),
    ]

    @Test(arguments: badCases)
    func badSettingsAreRefusedNamingTheField(_ bad: BadCase) {
        do {
            _ = try Self.config(bad.section)
            Issue.record("accepted")
        } catch let error as ConfigError {
            #expect(error.field == bad.field)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// `check-config` and `serve` share the validation: the relaxed settings are its warnings, the refused ones
    /// its errors.
    @Test func theValidationWarnsOfRelaxedSettingsAndRefusesTheBadOnes() throws {
        let directory = try ConfigValidationTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func validate(_ section: JSONValue) throws -> ConfigValidation {
            var document = StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9")
            if case .object(var members) = document {
                members["firebaseCompat"] = section
                document = .object(members)
            }
            return try ConfigValidationTests.validate(document, in: directory)
        }
        let quiet = try validate(["enabled": true])
        #expect(quiet.errors.isEmpty)
        #expect(quiet.warnings.isEmpty, "\(quiet.warnings)")
        let relaxed = try validate(["enabled": true, "host": "0.0.0.0", "allowRemote": true])
        #expect(relaxed.errors.isEmpty)
        #expect(relaxed.warnings.map(\.field) == ["firebaseCompat.allowRemote"])
        let unsigned = try validate(["enabled": true, "acceptUnsignedCustomTokens": true])
        #expect(unsigned.warnings.map(\.field) == ["firebaseCompat.acceptUnsignedCustomTokens"])
        let refused = try validate(["enabled": true, "allowRemote": true, "acceptUnsignedCustomTokens": true, "prot": 1])
        #expect(refused.config == nil)
        #expect(refused.errors.map(\.field).sorted() == ["firebaseCompat.acceptUnsignedCustomTokens", "firebaseCompat.prot"])
    }
}
