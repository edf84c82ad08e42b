import BrokerCore
import BrokerModel
import Testing

/// The `passkeys` section of `providers.json`: its per-address limit on passwordless sign-ups.
@Suite struct PasskeySettingsTests {
    static func passkeys(_ section: JSONValue) throws -> PasskeySettings {
        try ServerConfigTests.config([(["passkeys"], section)]).passkeys
    }

    @Test func theSignUpLimitDefaultsTo30AndIsRead() throws {
        let base: [String: JSONValue] = ["enabled": true, "rpId": "example.com", "origins": ["https://example.com"]]
        #expect(try Self.passkeys(.object(base)).maxSignUpsPerAddressPerHour == 30)
        #expect(PasskeySettings.defaults.maxSignUpsPerAddressPerHour == 30)
        var limited = base
        limited["maxSignUpsPerAddressPerHour"] = 5
        #expect(try Self.passkeys(.object(limited)).maxSignUpsPerAddressPerHour == 5)
    }

    @Test(arguments: [JSONValue.int(0), .int(100_001), .double(2.5), "30"])
    func aSignUpLimitOutOfRangeIsRefusedNamingTheField(_ value: JSONValue) {
        do {
            _ = try Self.passkeys(["maxSignUpsPerAddressPerHour": value])
            Issue.record("accepted")
        } catch let error as ConfigError {
            #expect(error.field == "passkeys.maxSignUpsPerAddressPerHour")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
