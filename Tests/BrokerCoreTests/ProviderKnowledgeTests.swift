import Foundation
import Testing

/// Everything the broker's core modules know about a provider lives in its folder under `BrokerIdentity/`: outside it,
/// at most two files may name the provider (the catalog, and one elsewhere, such as the account half of Kakao's legacy
/// linking, which sees accounts and so lives in BrokerCore), counted
/// case-insensitively, comments and strings included (docs/architecture.md). The embedded OpenAPI document is not
/// counted: it is the wire contract as text (the providers' request fields and error codes, such as
/// `KAKAO_EMAIL_REQUIRED`), generated from `openapi.json`, and no code reads it.
@Suite struct ProviderKnowledgeTests {
    /// Files that describe the API rather than implement it.
    static let documentation: Set<String> = ["BrokerHTTP/Operations/OpenAPIDocument+JSON.swift"]

    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// The modules below the surfaces, where a provider's knowledge would hide: (path under Sources/, text).
    static func coreFiles() throws -> [(String, String)] {
        var found: [(String, String)] = []
        for module in ["BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerCore"] {
            let root = sources.appendingPathComponent(module)
            let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                let relative = String(url.path.dropFirst(sources.path.count + 1))
                guard !documentation.contains(relative) else { continue }
                found.append((relative, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        #expect(found.count > 200)
        return found
    }

    static func files(naming provider: String) throws -> [String] {
        try coreFiles().filter { relative, text in
            !relative.hasPrefix("BrokerIdentity/\(provider)/")
                && text.range(of: provider, options: .caseInsensitive) != nil
        }.map(\.0).sorted()
    }

    @Test(arguments: ["Google", "Apple", "Kakao", "Naver"])
    func aProviderIsNamedByAtMostTwoFilesOutsideItsFolder(_ provider: String) throws {
        let naming = try Self.files(naming: provider)
        #expect(naming.count <= 2, "\(provider) is named outside its folder by \(naming)")
        #expect(naming.contains("BrokerIdentity/ProviderCatalog+BuiltIn.swift"))
    }

    /// "line" is an everyday word (`inline`, `lines`), so LINE is found by what only LINE code says: the type's
    /// names (`Line` followed by a capital), its quoted id, and its hosts.
    @Test func lineIsNamedByAtMostTwoFilesOutsideItsFolder() throws {
        let pattern = try Regex(#"\bLine[A-Z]|"line"|line\.me|\bLINE\b"#)
        let naming = try Self.coreFiles().filter { relative, text in
            !relative.hasPrefix("BrokerIdentity/Line/") && text.contains(pattern)
        }.map(\.0)
        #expect(naming.count <= 2, "LINE is named outside its folder by \(naming.sorted())")
        #expect(naming.contains("BrokerIdentity/ProviderCatalog+BuiltIn.swift"))
    }
}
