import BrokerCore
import BrokerHTTP
import BrokerModel
import Foundation

/// A stand-in for Kakao's admin-key API as the broker uses it: `POST /kakao/v1/user/unlink` (under the stubs'
/// base URL), checking `Authorization: KakaoAK <adminKey>` and the form `target_id_type=user_id&target_id=<id>`,
/// recording each unlink, with faults on demand.
public final class StubKakaoAdmin: @unchecked Sendable {
    /// How the stub misbehaves.
    public enum Fault: Sendable, Equatable {
        /// Answers normally.
        case none
        /// Answers 503.
        case down
        /// Waits this long before answering.
        case slow(milliseconds: Int)
        /// Answers 400 with Kakao's -2 (a permanent refusal).
        case refusing
    }

    /// The admin key the stub accepts.
    public static let adminKey = "stub-kakao-admin-key-0123456789"
    /// The unlink path.
    public static let unlinkPath = "/kakao/v1/user/unlink"

    // Guarded by `lock`.
    private var fault: Fault = .none
    private var unlinked: [Int64] = []
    private var calls = 0
    private let lock = NSLock()

    init() {}

    /// Sets the fault.
    public func setFault(_ fault: Fault) { lock.withLock { self.fault = fault } }
    /// The Kakao user ids unlinked so far, in order.
    public var unlinks: [Int64] { lock.withLock { unlinked } }
    /// Calls received so far (accepted or not).
    public var callCount: Int { lock.withLock { calls } }

    func addRoutes(_ router: inout Router) {
        router.add("POST", Self.unlinkPath) { [self] request, _ in try await unlink(request) }
    }

    private func unlink(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fault = lock.withLock {
            calls += 1
            return self.fault
        }
        switch fault {
        case .down: return .json(503, ["code": -9798, "msg": "service under maintenance"])
        case .slow(let milliseconds): try await Task.sleep(for: .milliseconds(max(0, min(milliseconds, 30_000))))
        case .refusing: return .json(400, ["code": -2, "msg": "invalid argument"])
        case .none: break
        }
        guard request.headers["authorization"] == "KakaoAK " + Self.adminKey else {
            return .json(401, ["code": -401, "msg": "wrong appKey type. need admin key"])
        }
        let form = StubForm.parse(request.body)
        guard form["target_id_type"] == "user_id", let target = form["target_id"].flatMap({ Int64($0) }), target > 0
        else { return .json(400, ["code": -2, "msg": "invalid argument"]) }
        lock.withLock { unlinked.append(target) }
        return .json(200, ["id": .int(target)])
    }
}

/// An `application/x-www-form-urlencoded` body as the stubs read it.
enum StubForm {
    static func parse(_ body: [UInt8]) -> [String: String] {
        var form: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        return form
    }
}
