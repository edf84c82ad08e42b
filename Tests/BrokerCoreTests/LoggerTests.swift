import BrokerCore
import BrokerHTTP
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Log lines carry metadata with its JSON type, and the request log line says who asked.
@Suite struct LoggerTests {
    @Test func metadataKeepsItsJSONType() throws {
        let sink = MemoryLogSink()
        let logger = Logger(sink: sink, metadata: ["instance": "a", "shard": 3])
        let route = "/v1/token"
        logger.info("typed", metadata: ["status": 401, "durationMs": 1.25, "cached": true, "route": "\(route)"])
        logger.info("strings", metadata: ["route": route])  // a [String: String] call site, unchanged
        logger.with(["requestId": route]).warning("with", metadata: ["big": .integer(UInt64.max), "nan": .double(.nan)])
        let lines = sink.lines
        #expect(lines.count == 3)
        let typed = try #require(JSONValue.parse(Array(lines[0].utf8)))
        #expect(typed["status"] == .int(401))
        #expect(typed["durationMs"] == .double(1.25))
        #expect(typed["cached"] == .bool(true))
        #expect(typed["route"] == "/v1/token")
        #expect(typed["shard"] == .int(3))
        #expect(lines[0].contains(#""status":401"#) && lines[0].contains(#""durationMs":1.25"#) && lines[0].contains(#""cached":true"#))
        #expect(JSONValue.parse(Array(lines[1].utf8))?["route"] == "/v1/token")
        let with = try #require(JSONValue.parse(Array(lines[2].utf8)))
        #expect(with["requestId"] == "/v1/token")
        #expect(with["big"] == .int(Int64.max))
        #expect(with["nan"] == .null)
        #expect(with["level"] == "warning")
    }

    @Test func requestLinesCarryTheUserAgentBounded() async throws {
        let sink = MemoryLogSink()
        let store = MemoryBrokerStore(clock: ManualClock())
        let services = try await BrokerServices.make(
            config: try BrokerConfig(
                parsing: Array(#"{"projectId":"p","issuer":"https://auth.example","providers":{}}"#.utf8), environment: [:]),
            store: store, httpClient: ScriptedHTTPClient { _ in throw HTTPClientError(.connectionFailed) },
            passwords: UnusedPasswords(), logger: Logger(sink: sink))
        let app = BrokerApp(services: services, surfaces: BrokerApp.mainSurfaces(services))
        let long = String(repeating: "x", count: 5000)
        for agent in ["ExampleApp/1.0 (iPhone; iOS 18.1)", long] {
            let response = await app.handle(
                HTTPRequest(method: "GET", path: "/healthz", headers: ["User-Agent": agent]))
            #expect(response.status == 200)
        }
        let lines = sink.lines.compactMap { JSONValue.parse(Array($0.utf8)) }.filter { $0["msg"] == "request" }
        #expect(lines.count == 2)
        #expect(lines.first?["userAgent"] == "ExampleApp/1.0 (iPhone; iOS 18.1)")
        #expect(lines.last?["userAgent"]?.stringValue?.count == 256)
        #expect(lines.first?["status"] == .int(200))
    }
}

/// Passwords play no part in these tests.
private struct UnusedPasswords: PasswordHashing {
    func hash(_ password: String) async throws -> String { "unused" }
    func verify(_ password: String, against encoded: String) async throws -> Bool { false }
}
