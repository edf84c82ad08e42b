import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// `design/sign-in-pipeline.md`, "Services own their use cases": a surface only translates. It reads nothing from
/// the store itself (the compiler keeps that: the surfaces are other modules, and the composition's store is
/// internal to the core), so the reasons it tells apart travel in the refusals; each surface holds its own
/// `Dependencies`, made from the composition in one initializer, never the composition itself; it does not wake the
/// outbox (the service whose write queued jobs rings ``OutboxDoorbell``); and no code finds a store feature with
/// `as?`: `BrokerStore` composes every store protocol.
@Suite struct SurfaceFitnessTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// Every Swift file under `folder` of `module`, as (path relative to the module, text).
    static func sources(under folder: String = "", in module: String = "BrokerCore") throws -> [(String, String)] {
        let base = Self.sources.appendingPathComponent(module)
        let root = folder.isEmpty ? base : base.appendingPathComponent(folder)
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        var found: [(String, String)] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            found.append(
                (String(url.path.dropFirst(base.path.count + 1)), try String(contentsOf: url, encoding: .utf8)))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    /// The surfaces: the BrokerHTTP module and the Firebase module's listener. (That they read nothing from the
    /// store is the compiler's to keep: the composition's store is internal to the core.)
    static func surfaces() throws -> [(String, String)] {
        try sources(in: "BrokerHTTP") + sources(under: "Listener", in: "BrokerFirebase")
    }

    @Test func surfacesHoldTheirOwnDependenciesNotTheComposition() throws {
        // `BrokerServices` appears under Surfaces/ only as the parameter of an initializer (a surface's own, or
        // its `Dependencies`'), never as a stored property or a parameter of a handler.
        let holding = try Self.surfaces().flatMap { path, text in
            text.split(separator: "\n").filter { line in
                let code = line.trimmingCharacters(in: .whitespaces)
                return code.contains("BrokerServices") && !code.hasPrefix("///") && !code.contains("init(")
            }.map { "\(path): \($0.trimmingCharacters(in: .whitespaces))" }
        }
        #expect(holding == [], "hold or pass the composition: \(holding)")
    }

    @Test func noSurfaceWakesTheOutbox() throws {
        let waking = try Self.surfaces().filter { _, text in
            text.contains("jobsCommitted") || text.contains("doorbell.ring")
        }.map(\.0)
        #expect(waking == [], "\(waking) wake the outbox: the service whose write queued the jobs does")
    }

    @Test func noStoreFeatureIsFoundWithACast() throws {
        // Every protocol `BrokerStore` composes, read from its declaration, so a new one is covered too.
        let declaration = try String(
            contentsOf: Self.sources.appendingPathComponent("BrokerStorage/SessionStore.swift"), encoding: .utf8)
        let start = try #require(declaration.range(of: "public typealias BrokerStore ="))
        let composition = String(declaration[start.upperBound...]).components(separatedBy: "\n\n")[0]
        let features = composition.split(separator: "&").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(features.count >= 15 && features.contains("EventAnnouncing") && features.contains("OutboxStore"))
        let everywhere = try ["BrokerCore", "BrokerStorage", "BrokerHTTP", "BrokerFirebase"].flatMap {
            try Self.sources(in: $0)
        }
        let casting = everywhere.filter { _, text in
            features.contains { text.contains("as? any \($0)") || text.contains("as? (any \($0)") }
        }.map(\.0)
        #expect(casting == [], "\(casting) cast a store to one of its features")
    }

    /// Each surface answers refusals with one exhaustive `switch`: no `default:` in either mapper, so a new
    /// refusal does not build until both answer it.
    @Test(arguments: ["BrokerHTTP/Native/NativeErrors.swift", "BrokerFirebase/Listener/FirebaseError.swift"])
    func anErrorMapperHasNoDefault(_ path: String) throws {
        let text = try String(contentsOf: Self.sources.appendingPathComponent(path), encoding: .utf8)
        #expect(text.contains("switch refusal {"), "\(path) has no switch over Refusal")
        #expect(!text.contains("default:"), "\(path) has a default: a new refusal would pass unanswered")
    }
}
