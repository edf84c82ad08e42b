import Foundation
import Testing

/// `design/modules.md`: the layers are modules, and the arrows between them point one way. The compiler refuses an
/// import a target does not depend on; this test keeps the dependencies themselves as the design draws them, read
/// from `Package.swift`, so that a new arrow (the core depending on Firebase, say) is a decision made here.
@Suite struct ModuleGraphTests {
    /// The C system libraries and shims, which depend on nothing of ours.
    static let cLibraries: Set<String> = [
        "COpenSSL", "CCurl", "CSQLite", "CMicroHTTPD", "CArgon2", "CLibPQ", "CCrypt", "CCBOR", "CBrokerShims",
    ]

    /// Every library target of ours, and all it may depend on.
    static let allowed: [String: Set<String>] = [
        "BrokerCrypto": ["COpenSSL"],
        "BrokerCBOR": ["CCBOR"],
        // Values only: no I/O, no use case, no store.
        "BrokerModel": ["BrokerCrypto"],
        // The stores: values in, values and AccountStoreError out; no use case.
        "BrokerStorage": ["BrokerModel", "BrokerCrypto"],
        // The providers: they see no account, session or store.
        "BrokerIdentity": ["BrokerModel", "BrokerCrypto"],
        "BrokerCore": ["BrokerModel", "BrokerStorage", "BrokerIdentity", "BrokerCrypto", "BrokerCBOR"],
        "BrokerHTTP": ["BrokerCore", "BrokerModel", "BrokerIdentity", "BrokerCrypto"],
        "BrokerFirebase": ["BrokerCore", "BrokerHTTP", "BrokerModel", "BrokerIdentity", "BrokerCrypto"],
        "BrokerDrivers": cLibraries.union(["BrokerCore", "BrokerModel", "BrokerStorage", "BrokerCrypto"]),
        "BrokerTesting": [
            "BrokerCore", "BrokerHTTP", "BrokerFirebase", "BrokerModel", "BrokerStorage", "BrokerIdentity",
            "BrokerCrypto",
            "BrokerCBOR", "BrokerDrivers",
        ],
        "BrokerAuth": [],
    ]

    /// Each target's declared dependencies, by name, read from `Package.swift`.
    static func targets() throws -> [String: Set<String>] {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let target = try Regex(#"\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"([^)]*)"#)
        let quoted = try Regex(#""([^"]+)""#)
        var found: [String: Set<String>] = [:]
        for match in text.matches(of: target) {
            let name = String(match.output[1].substring ?? "")
            let rest = String(match.output[2].substring ?? "")
            var dependencies: Set<String> = []
            if let start = rest.range(of: "dependencies:"), let open = rest[start.upperBound...].firstIndex(of: "["),
                let close = rest[open...].firstIndex(of: "]")
            {
                for dependency in rest[open...close].matches(of: quoted) {
                    dependencies.insert(String(dependency.output[1].substring ?? ""))
                }
            }
            found[name] = dependencies
        }
        return found
    }

    @Test func everyLibraryDependsOnlyOnWhatTheDesignAllows() throws {
        let targets = try Self.targets()
        for (library, allowed) in Self.allowed {
            let declared = try #require(targets[library], "\(library) is not in Package.swift")
            #expect(
                declared.subtracting(allowed).isEmpty, "\(library) depends on \(declared.subtracting(allowed).sorted())"
            )
        }
        // A library target this test does not know is a new layer: draw its arrows here first.
        let libraries = Set(targets.keys).subtracting(Self.cLibraries).filter { !$0.hasSuffix("Tests") }
        let known = Set(Self.allowed.keys).union(["broker", "broker-demo", "stub-providers", "bench-crypto"])
        #expect(libraries.subtracting(known).isEmpty, "undrawn targets: \(libraries.subtracting(known).sorted())")
    }

    /// SwiftPM lets a target import any module its dependencies reach, so a surface could `import BrokerStorage`
    /// through the core; this keeps every import of a library's files among the dependencies it declares.
    @Test func everyImportIsADeclaredDependency() throws {
        let targets = try Self.targets()
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let ours = Set(targets.keys)
        let importLine = try Regex(#"^(?:@testable |public |package |internal )?import (\w+)"#)
        var checked = 0
        for library in Self.allowed.keys.sorted() {
            let declared = try #require(targets[library])
            let root = sources.appendingPathComponent(library)
            let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            for case let url as URL in files where url.pathExtension == "swift" {
                let text = try String(contentsOf: url, encoding: .utf8)
                for line in text.split(separator: "\n").prefix(40) {
                    guard let match = String(line).firstMatch(of: importLine),
                        let module = match.output[1].substring.map(String.init), ours.contains(module)
                    else { continue }
                    checked += 1
                    #expect(declared.contains(module), "\(library)/\(url.lastPathComponent) imports \(module)")
                }
            }
        }
        #expect(checked > 500)
    }

    @Test func theCoreAndWhatItUsesNeverReachTheSurfacesFirebaseOrTheDrivers() throws {
        let targets = try Self.targets()
        // Everything the core reaches, transitively.
        var reached: Set<String> = []
        var queue = ["BrokerCore"]
        while let next = queue.popLast(), reached.count < 100 {
            for dependency in targets[next] ?? [] where reached.insert(dependency).inserted { queue.append(dependency) }
        }
        #expect(
            reached.isDisjoint(with: ["BrokerHTTP", "BrokerFirebase", "BrokerDrivers", "BrokerTesting"]),
            "\(reached.sorted())")
        #expect(!reached.isEmpty)
    }

    @Test func theArrowsFormNoCycle() throws {
        let targets = try Self.targets()
        var state: [String: Bool] = [:]  // false: on the path; true: done
        func visit(_ name: String, depth: Int) -> Bool {
            if let done = state[name] { return done }
            guard depth < 64 else { return false }
            state[name] = false
            for dependency in targets[name] ?? [] where !visit(dependency, depth: depth + 1) { return false }
            state[name] = true
            return true
        }
        for name in targets.keys.sorted() { #expect(visit(name, depth: 0), "a cycle through \(name)") }
        #expect(targets.count > 20)
    }
}
