import BrokerTesting
import Foundation
import Testing

/// The README's iOS snippets are well-typed Swift 6 (strict concurrency), checked with `swiftc -typecheck
/// -swift-version 6` against the package's BrokerAuth module and the SDK stand-ins in Tests/ReadmeSnippets (UIKit
/// and the SDKs do not exist on Linux). BrokerAuth is built against the stand-ins too, so its Apple-only parts
/// (the Keychain, Apple's credential) are type-checked with them.
/// Serialized: each test runs the compiler several times.
@Suite(.serialized) struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The stand-ins in dependency order, each `Module-Version.swift`.
    static let stubs = [
        "UIKit-iOS18", "AuthenticationServices-iOS18", "CryptoKit-iOS18", "Security-iOS18", "FirebaseAuth-11",
        "KakaoSDKAuth-2", "GoogleSignIn-8", "KakaoSDKUser-2", "NidThirdPartyLogin-5", "LineSDK-5", "CoreImage-iOS18",
    ]

    /// The settings of the BrokerAuth target in Package.swift, as compiler flags.
    static let brokerAuthFlags = [
        "-swift-version", "6", "-strict-concurrency=complete", "-enable-upcoming-feature", "ExistentialAny",
        "-enable-upcoming-feature", "MemberImportVisibility", "-enable-upcoming-feature", "InternalImportsByDefault",
    ]

    /// URLSession lives in FoundationNetworking on Linux; on iOS, Foundation has it.
    static let linuxPrelude = "#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n"

    /// The Swift blocks of "Calling it from an iOS app", "Sessions and auto-login in an app" (with its raw HTTP
    /// reference) and "Guests, upgraded in place".
    static func snippets() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Calling it from an iOS app\n"))
        let end = try #require(readme.range(of: "\n## Migrating an app", range: start.upperBound..<readme.endIndex))
        let section = readme[start.upperBound..<end.lowerBound]
        return section.components(separatedBy: "```swift\n").dropFirst().compactMap { block in
            block.components(separatedBy: "\n```").first.map { $0 + "\n" }
        }
    }

    static func swiftc(_ arguments: [String]) async throws -> (Int32, String) {
        let child = try ChildProcess(
            "/usr/bin/env", ["swiftc"] + arguments, environment: ProcessInfo.processInfo.environment)
        let status = try await child.wait(seconds: 300)
        return (status, child.stderr + child.stdout)
    }

    /// Builds the stand-in modules into a new directory (Swift 5 mode, as the SDKs are built).
    static func modules() async throws -> URL {
        let directory = try ProcessTests.temporaryDirectory()
        for stub in stubs {
            let module = String(stub.prefix { $0 != "-" })
            let (status, output) = try await swiftc([
                "-emit-module", "-parse-as-library", "-swift-version", "5", "-module-name", module, "-I",
                directory.path,
                "-emit-module-path", directory.appendingPathComponent("\(module).swiftmodule").path,
                root.appendingPathComponent("Tests/ReadmeSnippets/\(stub).swift").path,
            ])
            #expect(status == 0, "\(stub): \(output)")
        }
        let sources = try FileManager.default.contentsOfDirectory(
            atPath: root.appendingPathComponent("Sources/BrokerAuth").path
        )
        .filter { $0.hasSuffix(".swift") }.sorted().map { root.appendingPathComponent("Sources/BrokerAuth/\($0)").path }
        let (status, output) = try await swiftc(
            ["-emit-module", "-parse-as-library", "-module-name", "BrokerAuth", "-I", directory.path]
                + brokerAuthFlags + [
                    "-emit-module-path", directory.appendingPathComponent("BrokerAuth.swiftmodule").path,
                ]
                + sources)
        #expect(status == 0, "BrokerAuth: \(output)")
        #expect(!output.contains("warning:"), "BrokerAuth: \(output)")
        return directory
    }

    /// Type-checks `sources` together, one file each, against the stand-ins in `modules`.
    static func typecheck(_ sources: [String], modules: URL) async throws -> (Int32, String) {
        var files: [String] = []
        for (index, source) in sources.enumerated() {
            let file = modules.appendingPathComponent("snippet\(index).swift")
            try Data((linuxPrelude + source).utf8).write(to: file)
            files.append(file.path)
        }
        return try await swiftc(["-typecheck", "-swift-version", "6", "-I", modules.path] + files)
    }

    @Test func theIOSSnippetsTypeCheckUnderSwift6() async throws {
        let snippets = try Self.snippets()
        // With BrokerAuth: the client, Google, Apple, Kakao, Naver, LINE, email and password, a second factor,
        // passkeys, sessions, a guest's upgrade; over raw HTTP: the client, the session store; the authenticator-app
        // enrolment screen (a QR code with CoreImage) and the sign-in's second step.
        #expect(snippets.count == 14)
        let modules = try await Self.modules()
        defer { try? FileManager.default.removeItem(at: modules) }
        let (status, output) = try await Self.typecheck(snippets, modules: modules)
        #expect(status == 0, "\(output)")
        #expect(!output.contains("error:"), "\(output)")
        #expect(!output.contains("warning:"), "\(output)")
    }

    /// The check catches what the snippets must avoid: UI touched off the main actor.
    @Test func theCheckCatchesUIOffTheMainActor() async throws {
        let modules = try await Self.modules()
        defer { try? FileManager.default.removeItem(at: modules) }
        let wrong = """
            import UIKit
            final class Screen: UIViewController { var title2 = "" }
            func update(_ screen: Screen) async { screen.title2 = "signed in" }
            """
        let (status, output) = try await Self.typecheck([wrong], modules: modules)
        #expect(status != 0)
        #expect(output.contains("main actor"), "\(output)")
    }
}
