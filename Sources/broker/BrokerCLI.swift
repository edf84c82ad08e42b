import BrokerCore
import BrokerModel
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `broker <command>`: dispatches to the subcommands.
enum BrokerCLI {
    static let usage = """
        usage: broker serve [--config providers.json] [--database PATH_OR_URL] [--host 127.0.0.1] [--port 8080]
               broker check-config [--config providers.json] [--database PATH_OR_URL] [--port 8080]
               broker admin users list [--provider P] [--email E] [--json]
               broker admin users show|disable|enable|delete|revoke-sessions UID [--json]
               broker admin users unlink UID PROVIDER [--json]
               broker admin custom-token UID [--claims JSON]
               broker admin keys list|rotate [--json]
               broker admin audit [--uid U] [--limit N] [--json]
               broker admin import firebase FILE [--hash-algo A --hash-key B64 --salt-separator B64 --rounds N
                 --mem-cost N ...] [--map-provider FIREBASE_ID=PROVIDER]... [--link-uid-prefix PREFIX=PROVIDER]...
                 [--dry-run] [--json]
               broker admin export FILE [--include-secrets] [--json]
               broker admin outbox [--uid U] [--failing] [--json]
               broker admin outbox retry JOB_ID
               broker migrate-sqlite --from ./broker.sqlite --database postgres://…
               broker demo [--keep-running]
               broker --version
        Every command and subcommand answers --help and -h with its usage. A wrong command line (an unknown
        command or option, an argument missing or too many) is named, with the nearest known word, and exits 2.

        Environment: BROKER_CONFIG, BROKER_DATABASE, BROKER_DATABASE_POOL_SIZE, BROKER_HOST, BROKER_PORT,
        GOOGLE_APPLICATION_CREDENTIALS, BROKER_ADMIN_TOKEN or BROKER_ADMIN_TOKEN_FILE (the admin API answers 401
        to everyone without one).
        """

    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        guard let command = arguments.first else {
            printError(usage)
            return CommandLineMisuse.exitStatus
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "help", "--help", "-h":
            print(usage)
            return 0
        case "--version", "version":
            print("broker \(BrokerVersion.current)")
            return 0
        default: break
        }
        do {
            if CommandUsage.wantsHelp(rest) {
                guard
                    let (resolved, _) = try CommandUsage.resolve(command, CommandUsage.positionals(rest), strict: false)
                else {
                    print(CommandUsage.groupUsage(command))
                    return 0
                }
                print(CommandUsage.text(of: resolved))
                return 0
            }
            let options: LaunchOptions
            do {
                options = try LaunchOptions(arguments: rest, environment: environment)
            } catch var misuse as CommandLineMisuse {
                // Named against the options of the command meant (resolved without its arguments' count).
                let meant = try CommandUsage.resolve(command, CommandUsage.positionals(rest), strict: false)
                let text = meant.map { CommandUsage.text(of: $0.0) } ?? CommandUsage.groupUsage(command)
                if let option = misuse.unknownOption {
                    let name = String(option.prefix { $0 != "=" })
                    misuse.problem += CommandLineMisuse.suggestion(for: name, among: CommandUsage.flags(in: text))
                }
                misuse.usage = misuse.usage ?? text
                throw misuse
            }
            // The words first (an unknown one is named before its options are judged), then the options, then the
            // number of arguments.
            if let (meant, _) = try CommandUsage.resolve(command, options.positional, strict: false) {
                let text = CommandUsage.text(of: meant)
                let known = CommandUsage.flags(in: text)
                if let stray = options.givenFlags.subtracting(known).sorted().first {
                    throw CommandLineMisuse(
                        "\(stray) is not an option of \(meant)\(CommandLineMisuse.suggestion(for: stray, among: known))",
                        usage: text)
                }
            }
            _ = try CommandUsage.resolve(command, options.positional, strict: true)
            // The database holds signing keys: files the broker creates are for its own user only.
            umask(0o077)
            switch command {
            case "serve": return try await ServeCommand.run(options: options, environment: environment)
            case "check-config": return try await CheckConfigCommand.run(options: options, environment: environment)
            case "demo": try DemoLauncher.run(arguments: options.switches.intersection(["--keep-running"]).sorted())
            case "admin": return try await AdminCommand.run(options: options, environment: environment)
            case "migrate-sqlite": return try await MigrateSQLiteCommand.run(options: options, environment: environment)
            default: throw CommandLineMisuse("unknown command \"\(command)\"", usage: usage)  // resolve named it
            }
        } catch let misuse as CommandLineMisuse {
            printError("broker: \(misuse)")
            return CommandLineMisuse.exitStatus
        } catch let error as AdminCommand.UsageError {
            printError("broker admin: \(error)")
            return 1
        } catch let error as ConfigError {
            printError("broker: bad configuration: \(error)")
            return 1
        } catch let error as ConfigErrors {
            printError("broker: bad configuration: \(error)")
            return 1
        } catch {
            printError("broker: \(error)")
            return 1
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
