import BrokerCore
import BrokerModel

/// Where the broker's settings come from on the command line and in the environment: a flag wins over its
/// environment variable, which wins over the default (contract section 1).
struct LaunchOptions: Sendable, Equatable {
    /// The config file (`--config`, `BROKER_CONFIG`, `./providers.json`).
    var configPath: String
    /// The database (`--database`, `BROKER_DATABASE`, `./broker.sqlite`); `postgres://…` selects PostgreSQL.
    var database: String
    /// The listen host (`--host`, `BROKER_HOST`, `127.0.0.1`).
    var host: String
    /// The listen port (`--port`, `BROKER_PORT`, `8080`).
    var port: Int
    /// Arguments that are not options, in order.
    var positional: [String]
    /// Flags without a value (`--json`).
    var switches: Set<String>

    /// Parses `arguments` (after the subcommand) with `environment` as the fallback. An option no command takes, or
    /// a flag without its value, is a ``CommandLineMisuse``; a bad port a ``ConfigError``.
    init(arguments: [String], environment: [String: String]) throws {
        var values: [String: String] = [:]
        var repeated: [String: [String]] = [:]
        var positional: [String] = []
        var switches: Set<String> = []
        let valued = LaunchOptions.valuedFlags
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                let flag = String(argument[..<equals])
                guard valued.contains(flag) else { throw CommandLineMisuse.unknown(option: flag) }
                values[flag] = String(argument[argument.index(after: equals)...])
                repeated[flag, default: []].append(String(argument[argument.index(after: equals)...]))
            } else if valued.contains(argument) {
                guard index + 1 < arguments.count else { throw CommandLineMisuse("\(argument) needs a value") }
                values[argument] = arguments[index + 1]
                repeated[argument, default: []].append(arguments[index + 1])
                index += 1
            } else if argument.hasPrefix("--") {
                guard LaunchOptions.knownSwitches.contains(argument) else {
                    throw CommandLineMisuse.unknown(option: argument)
                }
                switches.insert(argument)
            } else {
                positional.append(argument)
            }
            index += 1
        }
        func pick(_ flag: String, _ variable: String, _ fallback: String) -> String {
            values[flag] ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
        }
        configPath = pick("--config", "BROKER_CONFIG", "./providers.json")
        database = pick("--database", "BROKER_DATABASE", "./broker.sqlite")
        host = pick("--host", "BROKER_HOST", "127.0.0.1")
        let portText = pick("--port", "BROKER_PORT", "8080")
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw ConfigError(field: values["--port"] != nil ? "--port" : "BROKER_PORT", "must be a port number")
        }
        self.port = port
        self.positional = positional
        self.switches = switches
        self.values = values
        self.repeated = repeated
    }

    /// Flags that take a value (`--port 8080` or `--port=8080`).
    static let valuedFlags: Set<String> = [
        "--config", "--database", "--host", "--port", "--provider", "--email", "--claims", "--from", "--uid", "--limit",
        // `admin import firebase`: the flags of `firebase auth:import`, and the two mapping flags (repeatable).
        "--hash-algo", "--hash-key", "--salt-separator", "--rounds", "--mem-cost", "--parallelization",
        "--block-size", "--dk-len", "--hash-input-order", "--map-provider", "--link-uid-prefix",
    ]

    /// Flags that take no value.
    static let knownSwitches: Set<String> = [
        "--json", "--help", "--keep-running", "--dry-run", "--failing", "--include-secrets",
    ]

    /// Every flag given, valued or not (`--port`, `--json`).
    var givenFlags: Set<String> { switches.union(values.keys) }

    /// The raw value of a valued flag (`--provider`, `--email`).
    func value(_ flag: String) -> String? { values[flag] }

    /// Every value of a valued flag, in order (`--map-provider` may be given many times).
    func values(_ flag: String) -> [String] { repeated[flag] ?? [] }

    /// What ``ConfigValidation`` reads: the config file and the database.
    var sources: ConfigSources { ConfigSources(configPath: configPath, database: database) }

    private var values: [String: String]
    private var repeated: [String: [String]]
}
