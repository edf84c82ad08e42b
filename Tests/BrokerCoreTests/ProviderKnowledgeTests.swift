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

    /// The eight files outside those folders that may name Firebase at all (comments and strings included, as for
    /// a provider), each for a reason:
    ///
    /// - `Config/FirebaseCompatSettings.swift`: reads and checks the `firebase` and `firebaseCompat` sections;
    /// - `Config/BrokerConfig.swift`: holds those sections' values (a stored property is declared in its type);
    /// - `Composition/BrokerServices.swift`: the composition (the service account, the custom-token minter, the
    ///   admin client, the Firebase session format);
    /// - `Admin/AdminService.swift`: the native admin API's refusal to mint a custom token without a service
    ///   account, whose message is wire text;
    /// - `Admin/CustomClaims.swift`: `firebase` is a reserved claim name whatever the surface, so that custom
    ///   claims set through any API cannot collide with the Firebase-shaped ID tokens' own;
    /// - `Identity/IdentityProvider.swift`, `Identity/Google/GoogleProvider.swift`, `Identity/Apple/AppleProvider
    ///   .swift`: the one member `firebaseProviderID`, the id Firebase gives a provider itself, which is provider
    ///   knowledge kept in the provider's folder (the rule that derives every identity's Firebase id from it lives in
    ///   `Surfaces/Firebase/ProviderRegistry+Firebase.swift`).
    static let firebaseFiles: Set<String> = [
        "Config/FirebaseCompatSettings.swift", "Config/BrokerConfig.swift", "Composition/BrokerServices.swift",
        "Admin/AdminService.swift", "Admin/CustomClaims.swift", "Identity/IdentityProvider.swift",
        "Identity/Google/GoogleProvider.swift", "Identity/Apple/AppleProvider.swift",
    ]

    /// The BrokerCore files outside the Firebase folders, the allow-list and the OpenAPI document that name
    /// Firebase (case-insensitively, comments and strings included).
    static func filesNamingFirebase() throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(at: core, includingPropertiesForKeys: nil))
        var naming: [String] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(core.path.count + 1))
            guard !firebaseFolders.contains(where: relative.hasPrefix), !firebaseFiles.contains(relative),
                !documentation.contains(relative)
            else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            if text.range(of: "firebase", options: .caseInsensitive) != nil { naming.append(relative) }
        }
        return naming.sorted()
    }

    @Test func firebaseIsNamedOnlyInItsFoldersAndTheAllowList() throws {
        let naming = try Self.filesNamingFirebase()
        #expect(naming.isEmpty, "Firebase is named outside its folders and the allow-list by \(naming)")
        #expect(Self.firebaseFiles.count <= 8)
        for file in Self.firebaseFiles {
            let path = Self.core.appendingPathComponent(file).path
            #expect(FileManager.default.fileExists(atPath: path), "\(file) is gone")
        }
    }
}
