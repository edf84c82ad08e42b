import BrokerCore
import Foundation

/// The usage text of every `broker` command and subcommand, and the check for `--help`/`-h` that runs before
/// any command does anything (so `broker serve --help` never starts a server).
enum CommandUsage {
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

    /// The usage of `command` with the subcommand words that follow it (`admin users list`), most specific first;
    /// nil for an unknown command.
    static func text(command: String, words: [String]) -> String? {
        switch command {
        case "serve": return serve
        case "check-config": return checkConfig
        case "demo": return demo
        case "migrate-sqlite": return MigrateSQLiteCommand.usage
        case "admin":
            switch (words.first, words.dropFirst().first) {
            case ("users"?, "list"?): return adminUsersList
            case ("users"?, "unlink"?): return adminUsersUnlink
            case ("users"?, let action?) where ["show", "disable", "enable", "delete", "revoke-sessions"].contains(action):
                return "usage: broker admin users \(action) UID [--json] [--config FILE] [--database PATH_OR_URL]"
            case ("custom-token"?, _): return adminCustomToken
            case ("keys"?, _): return adminKeys
            case ("audit"?, _): return adminAudit
            case ("import"?, _): return ImportCommand.usage
            case ("export"?, _): return ExportCommand.usage
            case ("outbox"?, _): return adminOutbox
            default: return AdminCommand.usage
            }
        default: return nil
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
