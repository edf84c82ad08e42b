import BrokerCore
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
        #expect(settings.warnings.isEmpty)
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
}
