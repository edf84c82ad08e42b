import BrokerCore
import BrokerFirebase
import BrokerModel
import Testing

/// The `trustedProxies` and `server` settings of `providers.json`.
@Suite struct ServerConfigTests {
    static func config(_ edits: [([String], JSONValue?)]) throws -> BrokerConfig {
        var document = try ConfigTests.shipped()
        for (path, value) in edits { document = ConfigTests.editing(document, path, value) }
        return try BrokerConfig(
            parsing: document.serialized(), environment: [:], sections: FirebaseModule.configSections)
    }

    @Test func defaultsWhenAbsent() throws {
        let config = try Self.config([])
        #expect(config.trustedProxies == .none)
        #expect(config.serverLimits == .defaults)
        #expect(config.serverLimits.maxConnections == 4096)
        #expect(config.serverLimits.maxConnectionsPerAddress == 64)
        #expect(config.serverLimits.idleTimeoutSeconds == 10)
        #expect(config.serverLimits.requestDeadlineSeconds == 30)
    }

    @Test func settingsAreRead() throws {
        let config = try Self.config([
            (["trustedProxies"], ["10.0.0.0/8", "2001:db8::1"]),
            (
                ["server"],
                [
                    "maxConnections": 20000, "maxConnectionsPerAddress": 100, "idleTimeoutSeconds": 5,
                    "requestDeadlineSeconds": 12,
                ]
            ),
        ])
        #expect(config.trustedProxies.ranges.map(\.description) == ["10.0.0.0/8", "2001:db8::1/128"])
        #expect(
            config.serverLimits
                == HTTPServerLimits(
                    maxConnections: 20000, maxConnectionsPerAddress: 100, idleTimeoutSeconds: 5,
                    requestDeadlineSeconds: 12))
        // A small total lowers the per-address default with it.
        #expect(try Self.config([(["server"], ["maxConnections": 32])]).serverLimits.maxConnectionsPerAddress == 32)
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        var path: [String]
        var value: JSONValue
        var field: String
        var testDescription: String { "\(path.joined(separator: ".")) = \(value) -> \(field)" }
    }

    static let badCases: [BadCase] = [
        BadCase(path: ["trustedProxies"], value: "10.0.0.0/8", field: "trustedProxies"),
        BadCase(path: ["trustedProxies"], value: ["10.0.0.0/8", "nope"], field: "trustedProxies[1]"),
        BadCase(path: ["trustedProxies"], value: ["10.0.0.1/8"], field: "trustedProxies[0]"),
        BadCase(path: ["trustedProxies"], value: [""], field: "trustedProxies"),
        BadCase(path: ["server"], value: "fast", field: "server"),
        BadCase(path: ["server", "maxConnections"], value: 8, field: "server.maxConnections"),
        BadCase(path: ["server", "maxConnections"], value: 2_000_000, field: "server.maxConnections"),
        BadCase(path: ["server", "maxConnections"], value: .double(1e300), field: "server.maxConnections"),
        BadCase(path: ["server", "maxConnectionsPerAddress"], value: 0, field: "server.maxConnectionsPerAddress"),
        BadCase(path: ["server", "maxConnectionsPerAddress"], value: 5000, field: "server.maxConnectionsPerAddress"),
        BadCase(path: ["server", "idleTimeoutSeconds"], value: 0, field: "server.idleTimeoutSeconds"),
        BadCase(path: ["server", "idleTimeoutSeconds"], value: .double(2.5), field: "server.idleTimeoutSeconds"),
        BadCase(path: ["server", "requestDeadlineSeconds"], value: 3601, field: "server.requestDeadlineSeconds"),
        BadCase(path: ["server", "requestDeadlineSecs"], value: 10, field: "server.requestDeadlineSecs"),
    ]

    @Test(arguments: badCases)
    func badSettingsAreRefusedNamingTheField(_ bad: BadCase) {
        do {
            _ = try Self.config([(bad.path, bad.value)])
            Issue.record("accepted")
        } catch let error as ConfigError {
            #expect(error.field == bad.field)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
