import BrokerCore
import Foundation

/// The usage of every `broker` command and subcommand, the list of them that the dispatch, its "did you mean" and
/// the docs' check (`DocsAgreeTests`) read, and the check for `--help`/`-h` that runs before any command does
/// anything (so `broker serve --help` never starts a server).
enum CommandUsage {
    /// One command `broker` runs: the words that name it and the arguments it takes after them.
    struct Command: Sendable, Equatable, CustomStringConvertible {
        /// `["serve"]`, `["admin", "users", "show"]`.
        var words: [String]
        /// The names of its arguments, all required: `["UID"]`, `["UID", "PROVIDER"]`.
        var operands: [String] = []
        /// `broker admin users show`.
        var description: String { (["broker"] + words).joined(separator: " ") }
    }

    /// Every command, in the order `broker --help` lists them.
    static let commands: [Command] = [
        Command(words: ["serve"]), Command(words: ["check-config"]),
        Command(words: ["admin", "users", "list"]),
    ] + ["show", "disable", "enable", "delete", "revoke-sessions"].map {
        Command(words: ["admin", "users", $0], operands: ["UID"])
    } + [
        Command(words: ["admin", "users", "unlink"], operands: ["UID", "PROVIDER"]),
        Command(words: ["admin", "custom-token"], operands: ["UID"]),
        Command(words: ["admin", "keys", "list"]), Command(words: ["admin", "keys", "rotate"]),
        Command(words: ["admin", "audit"]),
        Command(words: ["admin", "import", "firebase"], operands: ["FILE"]),
        Command(words: ["admin", "export"], operands: ["FILE"]),
        Command(words: ["admin", "outbox"]), Command(words: ["admin", "outbox", "retry"], operands: ["JOB_ID"]),
        Command(words: ["migrate-sqlite"]), Command(words: ["demo"]),
    ]

    /// Whether `arguments` (after the command) ask for help: `--help` or `-h` anywhere but as a flag's value.
    static func wantsHelp(_ arguments: [String]) -> Bool {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--help" || argument == "-h" { return true }
            if LaunchOptions.valuedFlags.contains(argument) { index += 1 }  // skip its value
            index += 1
        }
        return false
    }

    /// The arguments of `arguments` that are not options nor an option's value.
    static func positionals(_ arguments: [String]) -> [String] {
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if LaunchOptions.valuedFlags.contains(argument) {
                index += 1  // skip its value
            } else if !argument.hasPrefix("-") || argument == "-" {
                words.append(argument)
            }
            index += 1
        }
        return words
    }

    /// The command `command` and the words after it name, and the arguments left for it; a misuse naming the first
    /// word that is no subcommand (with the nearest that is), or, when `strict`, an argument missing or one too many.
    /// Without `strict` a group (`broker admin users`) resolves to nil: its usage is the group's.
    static func resolve(_ command: String, _ words: [String], strict: Bool) throws -> (Command, [String])? {
        let all = [command] + words
        var candidates = commands
        var depth = 0
        while true {
            let exact = candidates.first { $0.words.count == depth }
            let deeper = candidates.filter { $0.words.count > depth }
            if depth < all.count, deeper.contains(where: { $0.words[depth] == all[depth] }) {
                candidates = deeper.filter { $0.words[depth] == all[depth] }
                depth += 1
                continue
            }
            let named = "broker " + all.prefix(depth).joined(separator: " ")
            let next = Set(deeper.map { $0.words[depth] })
            if let exact {
                let operands = Array(all.dropFirst(depth))
                guard strict else { return (exact, operands) }
                let usage = text(of: exact)
                if operands.count < exact.operands.count {
                    let missing = exact.operands.dropFirst(operands.count).joined(separator: " ")
                    throw CommandLineMisuse("\(exact) needs \(missing)", usage: usage)
                }
                if operands.count > exact.operands.count {
                    let extra = operands[exact.operands.count]
                    let hint = exact.operands.isEmpty ? CommandLineMisuse.suggestion(for: extra, among: next) : ""
                    throw CommandLineMisuse("\(exact) takes no argument \"\(extra)\"\(hint)", usage: usage)
                }
                return (exact, operands)
            }
            guard depth < all.count else {
                guard strict else { return nil }
                throw CommandLineMisuse(
                    "\(named) needs one of: \(ordered(deeper.map { $0.words[depth] }).joined(separator: ", "))",
                    usage: groupUsage(all[0]))
            }
            let word = all[depth]
            let hint = CommandLineMisuse.suggestion(for: word, among: next)
            if depth == 0 {
                throw CommandLineMisuse(
                    "unknown command \"\(word)\"\(hint)", usage: "Run `broker --help` for every command.")
            }
            throw CommandLineMisuse("unknown \(named) command \"\(word)\"\(hint)", usage: groupUsage(all[0]))
        }
    }

    /// The usage of `command` with the words that follow it (`admin users list`, `admin users show u1`): the
    /// command's, or its group's when the words stop at a group (`admin`); nil when a word names nothing.
    static func text(command: String, words: [String]) -> String? {
        do {
            guard let (resolved, _) = try resolve(command, words, strict: false) else { return groupUsage(command) }
            return text(of: resolved)
        } catch {
            return nil
        }
    }

    /// The usage of a group of commands: `broker admin`'s, or every command's.
    static func groupUsage(_ command: String) -> String {
        command == "admin" ? AdminCommand.usage : BrokerCLI.usage
    }

    /// `words` without repeats, in their order.
    private static func ordered(_ words: [String]) -> [String] {
        var seen: Set<String> = []
        return words.filter { seen.insert($0).inserted }
    }

    /// The usage of one command.
    static func text(of command: Command) -> String {
        switch command.words {
        case ["serve"]: serve
        case ["check-config"]: checkConfig
        case ["demo"]: demo
        case ["migrate-sqlite"]: MigrateSQLiteCommand.usage
        case ["admin", "users", "list"]: adminUsersList
        case ["admin", "users", "unlink"]: adminUsersUnlink
        case ["admin", "custom-token"]: adminCustomToken
        case ["admin", "keys", "list"], ["admin", "keys", "rotate"]: adminKeys
        case ["admin", "audit"]: adminAudit
        case ["admin", "import", "firebase"]: ImportCommand.usage
        case ["admin", "export"]: ExportCommand.usage
        case ["admin", "outbox"], ["admin", "outbox", "retry"]: adminOutbox
        default:  // admin users show|disable|enable|delete|revoke-sessions
            "usage: \(command) UID [--json] [--config FILE] [--database PATH_OR_URL]"
        }
    }

    static let serve = """
        usage: broker serve [--config providers.json] [--database PATH_OR_URL] [--host 127.0.0.1] [--port 8080]
        Serves the broker until SIGTERM or SIGINT (then drains in-flight requests and exits 0).
        Environment: BROKER_CONFIG, BROKER_DATABASE, BROKER_DATABASE_POOL_SIZE, BROKER_HOST, BROKER_PORT,
        BROKER_ADMIN_TOKEN or BROKER_ADMIN_TOKEN_FILE, GOOGLE_APPLICATION_CREDENTIALS.
        """

    static let checkConfig = """
        usage: broker check-config [--config providers.json] [--database PATH_OR_URL] [--port 8080]
        Validates the configuration exactly as `serve` does (config file, admin token, database location), prints
        every error at once and the warnings `serve` would log, and starts nothing. Exits 0 when serve would start.
        """

    static let demo = """
        usage: broker demo [--keep-running]
        Starts local stub providers and a broker on a temporary database, runs one sign-in per provider and one
        refresh, and prints what an app gets back; then a password reset through a local mail sink (aiosmtpd when
        python3-aiosmtpd is installed): the mail, the /auth/action page and form, and the new password working.
        Nothing leaves this machine. With --keep-running both stay up (and the printed URLs, among them a fresh
        reset link, keep answering) until Ctrl-C; without it they stop when the demo ends.
        """

    static let adminUsersList = """
        usage: broker admin users list [--provider P] [--email E] [--json] [--config FILE] [--database PATH_OR_URL]
        """

    static let adminUsersUnlink = """
        usage: broker admin users unlink UID PROVIDER [--json] [--config FILE] [--database PATH_OR_URL]
        """

    static let adminCustomToken = """
        usage: broker admin custom-token UID [--claims JSON] [--config FILE] [--database PATH_OR_URL]
        """

    static let adminKeys = """
        usage: broker admin keys list|rotate [--json] [--config FILE] [--database PATH_OR_URL]
        """

    static let adminOutbox = """
        usage: broker admin outbox [--uid U] [--failing] [--json] [--config FILE] [--database PATH_OR_URL]
               broker admin outbox retry JOB_ID [--config FILE] [--database PATH_OR_URL]
        The outbox's jobs (mails, provider calls, events), optionally only those of user U, or only the failing
        ones (refused, given up, or waiting after a failed attempt); `retry` makes a failed job due now.
        """

    /// The options `usage` names (`--config`, `--json`…): those a command accepts, besides `--help`. A flag given
    /// to a command whose usage does not name it (`broker serve --hash-key …`) is refused, never ignored.
    static func flags(in usage: String) -> Set<String> {
        var flags: Set<String> = ["--help"]
        var rest = Substring(usage)
        while let start = rest.range(of: "--") {
            let name = rest[start.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            if !name.isEmpty { flags.insert("--" + name) }
            rest = rest[start.upperBound...].dropFirst(name.count)
        }
        return flags
    }

    static let adminAudit = """
        usage: broker admin audit [--uid U] [--limit N] [--json] [--config FILE] [--database PATH_OR_URL]
        The newest audit events first (at most N, 1 to 1000, default 100), optionally only those of user U.
        """
}
