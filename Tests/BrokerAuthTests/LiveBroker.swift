import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@testable import BrokerAuth

/// A live broker (real HTTP on loopback, SQLite) and the stub providers for one test, as the contract tests run
/// them; guests turned on, an admin token and a service account (so sessions carry custom tokens).
func withLiveBroker<T>(_ body: (BrokerHarness) async throws -> T) async throws -> T {
    let harness = try await BrokerHarness.start(serviceAccount: true, adminToken: LiveBroker.adminToken) { document in
        guard case .object(var members) = document else { return document }
        members["anonymous"] = ["enabled": true]
        return .object(members)
    }
    return try await harness.stopping(after: body)
}

enum LiveBroker {
    static let adminToken = "client-tests-admin-token"

    /// A new empty directory for session files.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("broker-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

extension BrokerHarness {
    /// The broker's URL as a `URL`.
    var url: URL { URL(string: baseURL)! }

    /// A client of this broker on `storage`, with `clock` for the ID token's expiry.
    func client(_ storage: SessionStorage = .memory, clock: TestClock = TestClock()) -> BrokerAuth {
        BrokerAuth(baseURL: url, storage: storage, now: { clock.now })
    }

    /// `GET /v1/me` with `idToken`: the status and the uid it names.
    func me(_ idToken: String) async throws -> (status: Int, uid: String?) {
        let answer = try await get("/v1/me", headers: ["Authorization": "Bearer " + idToken])
        return (answer.status, answer.json?["uid"]?.stringValue)
    }

    /// Refreshes made with `200` so far, as the broker's own metrics count them.
    var refreshes: Double {
        services.metrics.value("broker_http_requests_total", labels: ["route": "/v1/token", "status": "200"])
    }
}

/// A clock a test moves forward.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0  // guarded by `lock`

    var now: Date { Date().addingTimeInterval(lock.withLock { offset }) }

    func advance(_ seconds: TimeInterval) { lock.withLock { offset += seconds } }
}

/// The first `count` changes of `stream`, or those that came within 10 s.
func take(_ count: Int, from stream: AsyncStream<SessionChange>) async -> [SessionChange] {
    await withTaskGroup(of: [SessionChange]?.self) { group in
        group.addTask {
            var changes: [SessionChange] = []
            for await change in stream {
                changes.append(change)
                if changes.count == count { break }
            }
            return changes
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(10))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? []
    }
}
