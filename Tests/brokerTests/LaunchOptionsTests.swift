import BrokerCore
import BrokerModel
@testable import broker
import Testing

@Suite struct LaunchOptionsTests {
    @Test func defaultsApplyWithNothingSet() throws {
        let options = try LaunchOptions(arguments: [], environment: [:])
        #expect(options.configPath == "./providers.json")
        #expect(options.database == "./broker.sqlite")
        #expect(options.host == "127.0.0.1")
        #expect(options.port == 8080)
    }

    @Test func theEnvironmentOverridesDefaultsAndFlagsOverrideTheEnvironment() throws {
        let environment = [
            "BROKER_CONFIG": "/etc/p.json", "BROKER_DATABASE": "/var/b.sqlite", "BROKER_HOST": "0.0.0.0",
            "BROKER_PORT": "9000",
        ]
        let fromEnvironment = try LaunchOptions(arguments: [], environment: environment)
        #expect(fromEnvironment.configPath == "/etc/p.json")
        #expect(fromEnvironment.database == "/var/b.sqlite")
        #expect(fromEnvironment.host == "0.0.0.0")
        #expect(fromEnvironment.port == 9000)
        let flags = try LaunchOptions(
            arguments: ["--config", "a.json", "--database=b.sqlite", "--host", "::1", "--port", "0", "uid-1", "--json"],
            environment: environment)
        #expect(flags.configPath == "a.json")
        #expect(flags.database == "b.sqlite")
        #expect(flags.host == "::1")
        #expect(flags.port == 0)
        #expect(flags.positional == ["uid-1"])
        #expect(flags.switches == ["--json"])
    }

    @Test(arguments: [["--databse", "x.sqlite"], ["--verbose"], ["--databse=x.sqlite"]])
    func anUnknownOptionIsRefusedNotIgnored(_ arguments: [String]) {
        let error = #expect(throws: CommandLineMisuse.self) { try LaunchOptions(arguments: arguments, environment: [:]) }
        #expect(error?.unknownOption == arguments[0].split(separator: "=").first.map(String.init))
        #expect(error?.problem == "unknown option \(arguments[0].split(separator: "=")[0])")
    }

    @Test func aFlagWithoutItsValueIsAMisuse() {
        let error = #expect(throws: CommandLineMisuse.self) { try LaunchOptions(arguments: ["--port"], environment: [:]) }
        #expect(error?.problem == "--port needs a value")
    }

    @Test(arguments: [["--port", "http"], ["--port", "70000"]])
    func aBadPortIsRefusedByName(_ arguments: [String]) {
        let error = #expect(throws: ConfigError.self) { try LaunchOptions(arguments: arguments, environment: [:]) }
        #expect(error?.field == "--port")
    }
}
