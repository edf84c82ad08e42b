import Foundation
import Testing

/// Everything BrokerCore knows about a provider lives in its folder under `Identity/`: outside it, at most two
/// files may name the provider (the catalog, and one registration elsewhere), counted
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
}
