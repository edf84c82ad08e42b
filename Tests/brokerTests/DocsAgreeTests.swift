import BrokerCore
import Foundation
@testable import broker
import Testing

/// What the README and docs/ say that a machine can check against the product (issue 36): every `broker` command
/// in their code blocks names a real subcommand and only flags its usage names, they give the package list of
/// `scripts/setup-debian`, and the README quotes no test count (it changes with every test added).
@Suite struct DocsAgreeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// README.md and every docs/*.md.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }

    /// The lines of the fenced code blocks of `text` that hold shell (fences without a language, `sh`, `bash`,
    /// `shell`, `console`), with `\` continuations joined and comments dropped.
    static func shellLines(_ text: String) -> [String] {
        var lines: [String] = []
        var inBlock = false
        var shell = false
        var pending = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                if inBlock {
                    inBlock = false
                } else {
                    inBlock = true
                    shell = ["", "sh", "bash", "shell", "console"].contains(String(line.dropFirst(3)))
                }
                pending = ""
                continue
            }
            guard inBlock, shell else { continue }
            var content = line
            if let comment = content.range(of: " #") { content = String(content[..<comment.lowerBound]) }
            if content.hasPrefix("#") { content = "" }
            if content.hasSuffix("\\") {
                pending += content.dropLast() + " "
                continue
            }
            lines.append(pending + content)
            pending = ""
        }
        return lines
    }

    struct Invocation: CustomStringConvertible {
        var command: String
        var words: [String]
        var flags: [String]
        var line: String
        var description: String { line }
    }

    /// The `broker …` invocations on `line`: `broker` (or a path ending in `/broker`) in a command's place, not
    /// the Compose service in `docker compose exec broker broker …`.
    static func invocations(in line: String) -> [Invocation] {
        let tokens = line.split(whereSeparator: \.isWhitespace).map(String.init)
        let commandPlace: Set<String> = ["run", "exec", "&&", "||", ";", "|", "$", "sudo", "time", "broker", "$("]
        let stops: Set<String> = ["&&", "||", ";", "|", "&", ">", "2>", "2>&1", ")", "<"]
        var found: [Invocation] = []
        for (index, token) in tokens.enumerated() where token == "broker" || token.hasSuffix("/broker") {
            let previous = index == 0 ? nil : tokens[index - 1]
            guard previous == nil || commandPlace.contains(previous!) || previous!.contains("=") else { continue }
            guard index + 1 < tokens.count, tokens[index + 1] != "broker" else { continue }
            var rest = Array(tokens[(index + 1)...])
            if let stop = rest.firstIndex(where: { stops.contains($0) }) { rest = Array(rest[..<stop]) }
            let command = rest[0]
            var words: [String] = []
            var flags: [String] = []
            for token in rest.dropFirst() {
                let bare = token.trimmingCharacters(in: CharacterSet(charactersIn: "[]."))
                if bare.hasPrefix("--") {
                    flags.append(String(bare.prefix { $0 != "=" }))
                } else if flags.isEmpty, words.count < 2, bare.allSatisfy({ $0.isLowercase || $0 == "-" || $0 == "|" }),
                    !bare.isEmpty
                {
                    words.append(String(bare.split(separator: "|").first ?? ""))
                }
            }
            found.append(Invocation(command: command, words: words, flags: flags, line: line))
        }
        return found
    }

    static let adminSubcommands: Set<String> = ["users", "custom-token", "keys", "audit", "import", "export", "outbox"]
    static let userActions: Set<String> = [
        "list", "show", "disable", "enable", "delete", "revoke-sessions", "unlink",
    ]

    @Test func everyDocumentedBrokerCommandParsesAgainstItsUsage() throws {
        var checked = 0
        for path in try Self.documents() {
            for line in Self.shellLines(try Self.read(path)) {
                for invocation in Self.invocations(in: line) {
                    checked += 1
                    if ["--version", "version", "--help", "-h", "help"].contains(invocation.command) { continue }
                    guard let usage = CommandUsage.text(command: invocation.command, words: invocation.words) else {
                        Issue.record("\(path): unknown command in: \(invocation)")
                        continue
                    }
                    if invocation.command == "admin" {
                        #expect(
                            invocation.words.first.map(Self.adminSubcommands.contains) == true,
                            "\(path): unknown admin subcommand in: \(invocation)")
                        if invocation.words.first == "users" {
                            #expect(
                                invocation.words.dropFirst().first.map(Self.userActions.contains) == true,
                                "\(path): unknown users action in: \(invocation)")
                        }
                    }
                    let known = CommandUsage.flags(in: usage)
                    for flag in invocation.flags where !known.contains(flag) {
                        Issue.record("\(path): \(flag) is not an option of broker \(invocation.command): \(invocation)")
                    }
                }
            }
        }
        #expect(checked >= 20)  // the README and admin.md alone hold more: the scan found them
    }

    /// The scan itself: it finds commands where a shell would run them, and reports a wrong flag.
    @Test func theScanFindsCommandsAndWrongFlags() {
        let found = Self.invocations(in: "scripts/setup-debian && swift run broker serve --prot 0")
        #expect(found.map(\.command) == ["serve"])
        #expect(found.first?.flags == ["--prot"])
        #expect(!CommandUsage.flags(in: CommandUsage.serve).contains("--prot"))
        let compose = Self.invocations(in: "docker compose exec broker broker admin users list --json")
        #expect(compose.map(\.command) == ["admin"])
        #expect(compose.first?.words == ["users", "list"])
        #expect(Self.invocations(in: "curl localhost:8080/broker serve").isEmpty)
        #expect(Self.shellLines("```sh\nbroker admin \\\n  audit --uid u # a comment\n```\n") == ["broker admin  audit --uid u"])
    }

    /// The packages `scripts/setup-debian` installs.
    static func setupPackages() throws -> [String] {
        let script = try read("scripts/setup-debian")
        let start = try #require(script.range(of: "packages=("))
        let end = try #require(script[start.upperBound...].firstIndex(of: ")"))
        return script[start.upperBound..<end].split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The README and docs/operations.md give the script's list, in its order; CI installs all of it; the
    /// Dockerfile's build stage installs its C libraries.
    @Test func thePackageListsAgree() throws {
        let packages = try Self.setupPackages()
        #expect(packages.contains("libssl-dev") && packages.contains("pkg-config"))
        let listed = "`" + packages.joined(separator: " ") + "`"
        for path in ["README.md", "docs/operations.md"] {
            let text = try Self.read(path).split(whereSeparator: \.isNewline).joined(separator: " ")
            #expect(text.contains(listed), "\(path) should list \(listed)")
        }
        let ci = try Self.read(".ci/run").split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(Set(packages).subtracting(ci).isEmpty, ".ci/run lacks \(Set(packages).subtracting(ci).sorted())")
        let dockerfile = try Self.read("Dockerfile")
        let buildLine = try #require(dockerfile.split(separator: "\n").first { $0.contains("libssl-dev") })
        let buildPackages = Set(buildLine.split(whereSeparator: \.isWhitespace).map(String.init).filter { $0 != "\\" })
        let libraries = Set(packages.filter { $0.hasSuffix("-dev") || $0 == "pkg-config" })
        #expect(buildPackages == libraries)
    }

    /// The docs run the scripts directly (`scripts/check-compose.py`, `scripts/setup-debian`): every script with
    /// a `#!` line is executable.
    @Test func everyScriptIsExecutable() throws {
        let scripts = Self.root.appendingPathComponent("scripts")
        for name in try FileManager.default.contentsOfDirectory(atPath: scripts.path).sorted() {
            let path = scripts.appendingPathComponent(name).path
            guard let head = FileManager.default.contents(atPath: path)?.prefix(2), head == Data("#!".utf8) else { continue }
            #expect(FileManager.default.isExecutableFile(atPath: path), "scripts/\(name) is not executable")
        }
    }

    /// A count of tests in the README is wrong the day a test is added.
    @Test func theReadmeQuotesNoTestCount() throws {
        let text = try Self.read("README.md").split(whereSeparator: \.isNewline).joined(separator: " ")
        let counts = try Regex(#"\b\d[\d,]* tests\b|\bsome \d+ tests\b"#)
        #expect(text.matches(of: counts).map { String(text[$0.range]) } == [])
    }
}
