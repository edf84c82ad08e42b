import BrokerCore
import BrokerFirebase
import Testing

@testable import broker

/// A wrong command line names the word, and the nearest known one (issue 58): commands and subcommands from
/// ``CommandUsage/commands``, options from the command's usage.
@Suite struct CommandLineMisuseTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var words: [String]
        var problem: String
        var testDescription: String { words.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(words: ["serv"], problem: "unknown command \"serv\" (did you mean \"serve\"?)"),
        Case(words: ["Serve"], problem: "unknown command \"Serve\" (did you mean \"serve\"?)"),
        Case(words: ["frobnicate"], problem: "unknown command \"frobnicate\""),
        Case(
            words: ["admin", "user", "list"], problem: "unknown broker admin command \"user\" (did you mean \"users\"?)"
        ),
        Case(
            words: ["admin", "users", "lst"],
            problem: "unknown broker admin users command \"lst\" (did you mean \"list\"?)"),
        Case(words: ["admin", "users", "show"], problem: "broker admin users show needs UID"),
        Case(words: ["admin", "users", "unlink", "u1"], problem: "broker admin users unlink needs PROVIDER"),
        Case(
            words: ["admin", "users"],
            problem: "broker admin users needs one of: list, show, disable, enable, delete, revoke-sessions, unlink"),
        Case(
            words: ["admin"],
            problem: "broker admin needs one of: users, custom-token, keys, audit, import, export, outbox"),
        Case(words: ["serve", "now"], problem: "broker serve takes no argument \"now\""),
        Case(
            words: ["admin", "outbox", "rety", "j1"],
            problem: "broker admin outbox takes no argument \"rety\" (did you mean \"retry\"?)"),
        Case(
            words: ["admin", "users", "show", "u1", "u2"], problem: "broker admin users show takes no argument \"u2\""),
        Case(words: ["admin", "import", "firebase"], problem: "broker admin import firebase needs FILE"),
    ]

    @Test(arguments: cases)
    func theWordIsNamedWithTheNearest(_ misuse: Case) {
        let error = #expect(throws: CommandLineMisuse.self) {
            try CommandUsage.resolve(misuse.words[0], Array(misuse.words.dropFirst()), strict: true)
        }
        #expect(error?.problem == misuse.problem)
        #expect(error?.usage?.isEmpty == false)
    }

    @Test func aCommandWithItsArgumentsResolves() throws {
        let (command, operands) = try #require(
            try CommandUsage.resolve("admin", ["users", "unlink", "u1", "google"], strict: true))
        #expect(command.words == ["admin", "users", "unlink"] && operands == ["u1", "google"])
        let (retry, job) = try #require(try CommandUsage.resolve("admin", ["outbox", "retry", "j1"], strict: true))
        #expect(retry.words == ["admin", "outbox", "retry"] && job == ["j1"])
        let (listing, none) = try #require(try CommandUsage.resolve("admin", ["outbox"], strict: true))
        #expect(listing.words == ["admin", "outbox"] && none.isEmpty)
    }

    /// For help, a group's usage is the group's, an argument's count does not matter, and an unknown word is still
    /// named.
    @Test func helpResolvesLeniently() throws {
        #expect(try CommandUsage.resolve("admin", ["users"], strict: false) == nil)
        #expect(
            try CommandUsage.resolve("admin", ["users", "show"], strict: false)?.0.words == ["admin", "users", "show"])
        #expect(CommandUsage.text(command: "admin", words: []) == AdminCommand.usage)
        #expect(CommandUsage.text(command: "admin", words: ["users", "lst"]) == nil)
        #expect(
            CommandUsage.positionals(["--port", "0", "users", "--json", "--email=a@b", "list"]) == ["users", "list"])
    }

    /// Every misuse exits with one status, before it opens or creates anything.
    @Test(arguments: [
        ["serv"], ["admin", "user", "list"], ["admin", "users", "lst"], ["admin", "users", "show"],
        ["check-config", "--databse", "x.sqlite"], ["serve", "--dry-run"], ["serve", "--port"],
        ["admin", "users", "lst", "-h"],
        ["frobnicate", "--help"], [],
    ])
    func everyMisuseExitsTwo(_ arguments: [String]) async {
        #expect(
            await BrokerCLI.run(arguments: arguments, environment: ["BROKER_DATABASE": "/nonexistent/b.sqlite"]) == 2)
    }
}
