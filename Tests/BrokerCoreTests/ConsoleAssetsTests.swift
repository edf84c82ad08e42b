import BrokerCore
import BrokerHTTP
import BrokerTesting
import Foundation
import Testing

/// The console's embedded files are the committed ones (`scripts/embed-console` was run after the last edit).
@Suite struct ConsoleAssetsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/BrokerHTTP/Admin/Console")

    static func committedNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func theEmbeddedFilesAreTheCommittedOnes() async throws {
        let names = try Self.committedNames()
        #expect(names.contains("index.html") && names.contains("app.js") && names.count >= 8)
        // Not equal: a console file was added, removed or edited without running scripts/embed-console.
        #expect(ConsoleAssets.fileNames == names)
        let broker = try await InProcessBroker.start(adminToken: "console-assets-token-0123456789")
        for name in names {
            let response = await broker.get("/admin/\(name)")
            #expect(response.status == 200, "\(name)")
            #expect(response.body == Array(try Data(contentsOf: Self.folder.appendingPathComponent(name))), "\(name) differs")
        }
    }

    /// User text reaches the page only as text: no script sets markup from data.
    @Test func noScriptWritesMarkup() throws {
        for name in try Self.committedNames() where name.hasSuffix(".js") {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                #expect(!text.contains(sink), "\(name) uses \(sink)")
            }
            #expect(!text.contains("localStorage") && !text.contains("sessionStorage"), "\(name) keeps something in storage")
        }
    }
}
