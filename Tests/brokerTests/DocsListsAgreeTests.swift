import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import Foundation
import Testing

@testable import broker

/// The lists the docs give that the code also holds (issue 58): the metric families, the audit actions, the CLI's
/// commands, the package's version and platforms. Each is checked against the code's own list, so that neither can
/// change without the other.
@Suite struct DocsListsAgreeTests {
    static func read(_ path: String) throws -> String { try DocsAgreeTests.read(path) }

    /// The text of `document` from the heading `heading` to the next heading of its level or higher.
    static func section(_ document: String, _ heading: String) throws -> String {
        let start = try #require(document.range(of: "\n" + heading + "\n"), "no section \(heading)")
        let level = heading.prefix { $0 == "#" }.count
        var end = document.endIndex
        var search = start.upperBound
        while let next = document[search...].range(of: "\n#") {
            let hashes = document[document.index(after: next.lowerBound)...].prefix { $0 == "#" }.count
            if hashes <= level, document[next.upperBound...].dropFirst(hashes - 1).first == " " {
                end = next.lowerBound
                break
            }
            search = next.upperBound
        }
        return String(document[start.upperBound..<end])
    }

    /// The rows of the first Markdown table in `text` whose header starts with `| header |`, as cells.
    static func tableRows(_ text: String, header: String) throws -> [[String]] {
        let lines = text.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("| \(header) |") }, "no table | \(header) |")
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The names in backticks in `cell`: "`disable`, `enable`" gives both.
    static func codeNames(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    // MARK: Metrics

    @Test func theMetricsTableListsEveryFamilyWithItsType() throws {
        let rows = try Self.tableRows(try Self.read("docs/operations.md"), header: "family")
        var documented: [String: String] = [:]
        for row in rows { documented[try #require(Self.codeNames(row[0]).first)] = row[1] }
        let code = Dictionary(uniqueKeysWithValues: Metrics.families.map { ($0.name, $0.type) })
        #expect(documented == code)
        // Its labels column names each family's labels.
        for row in rows {
            let family = try #require(Metrics.families.first { $0.name == Self.codeNames(row[0]).first })
            for label in family.labels {
                #expect(Self.codeNames(row[2]).contains(label), "\(family.name): the table does not name \(label)")
            }
        }
    }

    /// The README's list of families names every family with its labels, and no other.
    @Test func theReadmeListsEveryFamily() throws {
        let text = try Self.read("README.md")
        let pattern = try Regex(#"`(broker_[a-z_]+)(\{[a-z,]*\})?`"#)
        var listed: [String: [String]] = [:]
        for match in text.matches(of: pattern) {
            let name = String(try #require(match.output[1].substring))
            guard name.hasSuffix("_total") || name.hasSuffix("_seconds") || name.hasPrefix("broker_outbox_") else {
                continue
            }
            let labels =
                match.output[2].substring.map { $0.dropFirst().dropLast().split(separator: ",").map(String.init) } ?? []
            if labels.isEmpty, listed[name] != nil { continue }  // a mention elsewhere, without its labels
            listed[name] = labels
        }
        let code = Dictionary(uniqueKeysWithValues: Metrics.families.map { ($0.name, $0.labels) })
        #expect(listed == code)
    }

    /// Every `broker_…` name the sources record is a family of the list (none is shown with "no description"), and
    /// every family of the list is recorded somewhere.
    @Test func theSourcesRecordExactlyTheListedFamilies() throws {
        let literal = try Regex(#""(broker_[a-z_]+)""#)
        var recorded: Set<String> = []
        for module in ["BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerCore", "BrokerHTTP", "BrokerFirebase"] {
            let sources = DocsAgreeTests.root.appendingPathComponent("Sources/\(module)")
            let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
            while let path = enumerator.nextObject() as? String {
                guard path.hasSuffix(".swift"), !path.hasSuffix("Metrics+Families.swift") else { continue }
                let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
                for match in text.matches(of: literal) {
                    recorded.insert(String(try #require(match.output[1].substring)))
                }
            }
        }
        recorded.subtract(["broker_console", "broker_csrf"])  // cookies
        #expect(recorded == Set(Metrics.families.map(\.name)))
    }

    /// Every family has its own `# HELP` text and `# TYPE` on /metrics, `broker_hook_calls_total` included.
    @Test func everyFamilyIsDescribed() {
        let metrics = Metrics()
        for family in Metrics.families {
            switch family.type {
            case "histogram": metrics.observe(family.name, seconds: 0.1)
            case "gauge": metrics.set(family.name, to: 1)
            default: metrics.increment(family.name)
            }
        }
        let text = metrics.exposition()
        #expect(!text.contains("no description"))
        for family in Metrics.families {
            #expect(text.contains("# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"))
        }
    }

    // MARK: Audit actions

    @Test func theAuditTableListsEveryAction() throws {
        let section = try Self.section(try Self.read("docs/admin.md"), "## The audit log")
        let rows = try Self.tableRows(section, header: "action")
        let documented = rows.flatMap { Self.codeNames($0[0]) }
        #expect(documented.count == Set(documented).count, "an action is listed twice")
        let code = AuditAction.known.map(\.rawValue)
        #expect(Set(documented).subtracting(code).sorted() == [], "documented but not written")
        #expect(Set(code).subtracting(documented).sorted() == [], "written but not documented")
    }

    // MARK: The CLI

    /// The commands a usage text lists: the words after `broker` up to the first that is not a lowercase word,
    /// each `a|b` one command per alternative (`broker admin keys list|rotate` is two).
    static func commandsListed(in text: String) -> Set<[String]> {
        var found: Set<[String]> = []
        for line in text.split(separator: "\n") {
            let tokens = line.split(separator: " ").map(String.init)
            guard let start = tokens.firstIndex(of: "broker") else { continue }
            var paths: [[String]] = [[]]
            for token in tokens[(start + 1)...] {
                let alternatives = token.split(separator: "|").map(String.init)
                let words = alternatives.allSatisfy { word in
                    word.first?.isLetter == true && word.allSatisfy { $0.isLowercase || $0 == "-" }
                }
                guard words else { break }
                paths = paths.flatMap { path in alternatives.map { path + [$0] } }
            }
            if !(paths.first?.isEmpty ?? true) { found.formUnion(paths) }
        }
        return found
    }

    static var codeCommands: Set<[String]> { Set(CommandUsage.commands.map(\.words)) }

    /// The options a usage names that the command line takes (its prose may quote another tool's, such as
    /// `firebase auth:export --format=json`).
    static func options(in text: String) -> Set<String> {
        CommandUsage.flags(in: text).intersection(LaunchOptions.valuedFlags.union(LaunchOptions.knownSwitches))
    }
    static var adminCommands: Set<[String]> { codeCommands.filter { $0.first == "admin" } }

    @Test func brokerHelpListsEveryCommandAndItsOptions() {
        #expect(Self.commandsListed(in: BrokerCLI.usage) == Self.codeCommands)
        #expect(Self.commandsListed(in: AdminCommand.usage) == Self.adminCommands)
        let help = Self.options(in: BrokerCLI.usage)
        // Import's rarer hash flags are the "..." of its line.
        let elided: Set<String> = ["--parallelization", "--block-size", "--dk-len", "--hash-input-order"]
        for command in CommandUsage.commands {
            let text = CommandUsage.text(of: command)
            #expect(text.contains(command.description) || command.words.dropLast().count == 2, "\(command)")
            let missing = Self.options(in: text).subtracting(help).subtracting(elided)
            #expect(missing.isEmpty, "broker --help lacks \(missing.sorted()) of \(command)")
        }
    }

    /// admin.md's list is every admin command with the options of its usage.
    @Test func adminMdListsEveryAdminCommand() throws {
        let section = try Self.section(try Self.read("docs/admin.md"), "## The CLI")
        let block = try #require(section.components(separatedBy: "```").dropFirst().first)
        #expect(Self.commandsListed(in: block) == Self.adminCommands)
        let documented = CommandUsage.flags(in: block)
        for command in CommandUsage.commands where command.words.first == "admin" {
            let flags = Self.options(in: CommandUsage.text(of: command))
                .subtracting(["--config", "--database", "--hash-algo", "--hash-key", "--salt-separator", "--rounds"])
                .subtracting(["--mem-cost", "--parallelization", "--block-size", "--dk-len", "--hash-input-order"])
            #expect(flags.subtracting(documented).isEmpty, "admin.md lacks \(flags.subtracting(documented).sorted())")
        }
    }

    // MARK: The package

    /// A version requirement in the docs is the version the package says it is (there is no other tag to resolve),
    /// and the platforms they give are those `Package.swift` declares.
    @Test func thePackageLineAndPlatformsAgree() throws {
        let manifest = try Self.read("Package.swift")
        let macOS = try #require(manifest.firstMatch(of: try Regex(#"\.macOS\(\.v(\d+)\)"#))?.output[1].substring)
        let iOS = try #require(manifest.firstMatch(of: try Regex(#"\.iOS\(\.v(\d+)\)"#))?.output[1].substring)
        var packageLines = 0
        for path in try DocsAgreeTests.documents() {
            let text = try Self.read(path)
            for line in text.split(separator: "\n") where line.contains(".package(url:") {
                packageLines += 1
                for match in line.matches(of: try Regex(#"(?:from|exact): "([^"]+)""#)) {
                    #expect(String(match.output[1].substring ?? "") == BrokerVersion.current, "\(path): \(line)")
                }
            }
            for match in text.matches(of: try Regex(#"macOS (\d+)\+"#)) {
                #expect(match.output[1].substring == macOS, "\(path) says macOS \(match.output[1].substring ?? "")+")
            }
            for match in text.matches(of: try Regex(#"iOS (\d+)\+"#)) {
                #expect(match.output[1].substring == iOS, "\(path) says iOS \(match.output[1].substring ?? "")+")
            }
        }
        #expect(packageLines >= 1)
    }

    // MARK: Hooks

    /// The hooks' and events' times are whole seconds, as the broker sends them (`rfc3339`).
    @Test func hookTimesAreWholeSeconds() throws {
        let text = try Self.read("docs/hooks.md")
        let times = text.matches(of: try Regex(#""(?:time|timestamp)": "([^"]+)""#)).map {
            String($0.output[1].substring ?? "")
        }
        #expect(times.count >= 2)
        let sent = Date(timeIntervalSince1970: 1_796_220_000.25).rfc3339
        for time in times {
            #expect(time.count == sent.count && !time.contains("."), "hooks.md shows \(time); the broker sends \(sent)")
        }
    }

    // MARK: Skips and the README's first screen

    /// The top-level arguments of the call whose `(` is at `open` in `text`, each trimmed.
    static func arguments(_ text: [Character], from open: Int) -> [String] {
        var depth = 0
        var inString = false
        var current = ""
        var found: [String] = []
        var index = open
        while index < text.count {
            let character = text[index]
            if inString {
                if character == "\\" {
                    current.append(character)
                    index += 1
                    if index < text.count { current.append(text[index]) }
                    index += 1
                    continue
                }
                if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if "([{".contains(character) {
                depth += 1
                if depth == 1 {
                    index += 1
                    continue
                }
            } else if ")]}".contains(character) {
                depth -= 1
                if depth == 0 {
                    found.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                    return found
                }
            } else if character == ",", depth == 1 {
                found.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                current = ""
                index += 1
                continue
            }
            current.append(character)
            index += 1
        }
        return found
    }

    /// A skipped test says why, as the browser suites do: every `.enabled(if:)` and `.disabled(if:)` trait in the
    /// tests ends with its comment (`BROKER_TEST_POSTGRES_URL is not set …`).
    @Test func everySkipSaysWhy() throws {
        let tests = DocsAgreeTests.root.appendingPathComponent("Tests")
        let enumerator = try #require(FileManager.default.enumerator(atPath: tests.path))
        var traits = 0
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift"), !path.hasSuffix("DocsListsAgreeTests.swift") else { continue }
            let text = Array(try String(contentsOf: tests.appendingPathComponent(path), encoding: .utf8))
            let joined = String(text)
            for name in [".enabled(", ".disabled("] {
                var search = joined.startIndex
                while let range = joined.range(of: name, range: search..<joined.endIndex) {
                    search = range.upperBound
                    let open = joined.distance(from: joined.startIndex, to: range.upperBound) - 1
                    let arguments = Self.arguments(text, from: open)
                    traits += 1
                    let said =
                        arguments.count >= (arguments.first?.hasPrefix("if:") == true ? 2 : 1)
                        && arguments.last?.hasPrefix("\"") == true
                    #expect(said, "Tests/\(path): \(name)\(arguments.joined(separator: ", "))) says no reason")
                }
            }
        }
        #expect(traits >= 20)
    }

    /// The README opens with what the project is, the two commands (run the broker, run the tests) and the first
    /// look (`broker demo`), before anything else.
    @Test func theReadmesFirstScreenIsTheTwoCommandsAndTheFirstLook() throws {
        let readme = try Self.read("README.md")
        let top = try #require(readme.components(separatedBy: "\n---\n").first)
        let blocks = top.components(separatedBy: "```")
        #expect(blocks.count == 3, "one code block before the table of contents")
        let commands = DocsAgreeTests.shellLines(top).filter { !$0.isEmpty }
        #expect(commands.count == 2)
        #expect(commands.first?.hasSuffix("swift run broker serve") == true)
        #expect(commands.last?.hasSuffix("swift test") == true)
        let after = blocks[2].trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(after.hasPrefix("To take a first look, run `swift run broker demo`."))
        #expect(!top.contains("What was tried"))
        #expect(top.split(separator: "\n").count <= 40)
    }
}
