import Foundation
import Testing

/// Everything BrokerCore knows about a provider lives in its folder under `Identity/`: outside it, at most two
/// files may name the provider (the catalog, and a registration such as Firebase's endpoint names), counted
/// case-insensitively, comments and strings included (docs/architecture.md). The embedded OpenAPI document is not
/// counted: it is the wire contract as text (the providers' request fields and error codes, such as
/// `KAKAO_EMAIL_REQUIRED`), generated from `openapi.json`, and no code reads it.
@Suite struct ProviderKnowledgeTests {
    /// Files that describe the API rather than implement it.
    static let documentation: Set<String> = ["Surfaces/Operations/OpenAPIDocument+JSON.swift"]

    static let core = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/BrokerCore")

    static func files(naming provider: String) throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(at: core, includingPropertiesForKeys: nil))
        var naming: [String] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(core.path.count + 1))
            guard !relative.hasPrefix("Identity/\(provider)/"), !documentation.contains(relative) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            if text.range(of: provider, options: .caseInsensitive) != nil { naming.append(relative) }
        }
        return naming.sorted()
    }

    @Test(arguments: ["Google", "Apple", "Kakao", "Naver"])
    func aProviderIsNamedByAtMostTwoFilesOutsideItsFolder(_ provider: String) throws {
        let naming = try Self.files(naming: provider)
        #expect(naming.count <= 2, "\(provider) is named outside its folder by \(naming)")
        #expect(naming.contains("Identity/ProviderCatalog+BuiltIn.swift"))
    }

    /// "line" is an everyday word (`inline`, `lines`), so LINE is found by what only LINE code says: the type's
    /// names (`Line` followed by a capital), its quoted id, and its hosts.
    @Test func lineIsNamedByAtMostTwoFilesOutsideItsFolder() throws {
        let enumerator = try #require(FileManager.default.enumerator(at: Self.core, includingPropertiesForKeys: nil))
        let pattern = try Regex(#"\bLine[A-Z]|"line"|line\.me|\bLINE\b"#)
        var naming: [String] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(Self.core.path.count + 1))
            guard !relative.hasPrefix("Identity/Line/"), !Self.documentation.contains(relative) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            if text.contains(pattern) { naming.append(relative) }
        }
        #expect(naming.count <= 2, "LINE is named outside its folder by \(naming.sorted())")
        #expect(naming.contains("Identity/ProviderCatalog+BuiltIn.swift"))
    }

    // MARK: - Firebase

    /// Folders where Firebase is the subject: its listener, its tokens (sessions, custom tokens, the revoke job
    /// and `SessionRevocation` in `Tokens/Firebase/FirebaseRevocation.swift`), and its import and export.
    static let firebaseFolders = ["Surfaces/Firebase/", "Tokens/Firebase/", "Migration/"]

    /// The few files outside those folders that may name Firebase in code, each for a reason:
    ///
    /// - `Config/FirebaseCompatSettings.swift`: reads and checks the `firebase` and `firebaseCompat` sections;
    /// - `Config/BrokerConfig.swift`: holds those sections' values (a stored property is declared in its type);
    /// - `Composition/BrokerServices.swift`: composition (the service account, the custom-token minter, the admin client,
    ///   the Firebase session format), until the one composition replaces it;
    /// - `Admin/AdminService.swift`: the native admin API's refusal to mint a custom token without a service
    ///   account, whose message is wire text;
    /// - `Admin/CustomClaims.swift`: `firebase` is a reserved claim name whatever the surface, so that custom
    ///   claims set through any API cannot collide with the Firebase-shaped ID tokens' own.
    ///
    /// Besides, a file under `Identity/` may declare or implement the one member `firebaseProviderID`: the id
    /// Firebase gives a provider itself is provider knowledge, kept in the provider's folder (the rule that
    /// derives every provider's Firebase id from it lives in `Surfaces/Firebase/ProviderRegistry+Firebase.swift`).
    static let firebaseFiles: Set<String> = [
        "Config/FirebaseCompatSettings.swift", "Config/BrokerConfig.swift", "Composition/BrokerServices.swift",
        "Admin/AdminService.swift", "Admin/CustomClaims.swift",
    ]

    /// Embedded text for people, which no code reads: the OpenAPI document and the admin console's assets.
    static let firebaseDocumentation: Set<String> = documentation.union(["Surfaces/Admin/ConsoleAssets+Files.swift"])

    /// `text` without its `//` comments (a `//` inside a string literal is kept, and so are strings): comments
    /// may explain a semantic in Firebase's terms ("as Firebase does"); code and strings may not.
    static func withoutComments(_ text: String) -> String {
        var kept: [Substring] = []
        var inMultilineString = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if inMultilineString || line.contains("\"\"\"") {
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString.toggle() }
                kept.append(line)
                continue
            }
            var inString = false
            var escaped = false
            var end = line.endIndex
            var index = line.startIndex
            while index < line.endIndex {
                let character = line[index]
                let next = line.index(after: index)
                if inString {
                    if escaped {
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        inString = false
                    }
                } else if character == "\"" {
                    inString = true
                } else if character == "/", next < line.endIndex, line[next] == "/" {
                    end = index
                    break
                }
                index = next
            }
            kept.append(line[..<end])
        }
        return kept.joined(separator: "\n")
    }

    /// The BrokerCore files outside the Firebase folders, the allow-list and the documentation whose code names
    /// Firebase (case-insensitively; comments stripped; under `Identity/`, the `firebaseProviderID` member allowed).
    static func filesNamingFirebaseInCode() throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(at: core, includingPropertiesForKeys: nil))
        var naming: [String] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(core.path.count + 1))
            guard !firebaseFolders.contains(where: relative.hasPrefix), !firebaseFiles.contains(relative),
                !firebaseDocumentation.contains(relative)
            else { continue }
            var code = withoutComments(try String(contentsOf: url, encoding: .utf8))
            if relative.hasPrefix("Identity/") { code = code.replacingOccurrences(of: "firebaseProviderID", with: "") }
            if code.range(of: "firebase", options: .caseInsensitive) != nil { naming.append(relative) }
        }
        return naming.sorted()
    }

    @Test func firebaseIsNamedInCodeOnlyInItsFoldersAndTheAllowList() throws {
        let naming = try Self.filesNamingFirebaseInCode()
        #expect(naming.isEmpty, "Firebase is named in code outside its folders and the allow-list by \(naming)")
        for file in Self.firebaseFiles.union(Self.firebaseDocumentation) {
            let path = Self.core.appendingPathComponent(file).path
            #expect(FileManager.default.fileExists(atPath: path), "\(file) is gone")
        }
    }

    @Test func commentsAreStrippedButStringsAndCodeCount() {
        #expect(Self.withoutComments("let a = 1 // as Firebase does") == "let a = 1 ")
        #expect(Self.withoutComments("/// Firebase's shape\nlet b = 2") == "\nlet b = 2")
        let url = #"let url = "https://firebase.example""#
        #expect(Self.withoutComments(url + " // x") == url + " ")
        #expect(Self.withoutComments(#"let s = "a \" // firebase""#) == #"let s = "a \" // firebase""#)
        #expect(Self.withoutComments("let t = \"\"\"\n// firebase\n\"\"\"") == "let t = \"\"\"\n// firebase\n\"\"\"")
    }
}
