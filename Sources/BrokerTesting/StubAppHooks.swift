import BrokerCore
import BrokerHTTP
public import BrokerModel
import Foundation

/// A stand-in for an app's blocking hooks and event receiver (contract section 16), under the stubs' base URL:
/// `POST /app/hooks/{name}` answers as scripted (`{}` by default) and `POST /app/events` accepts deliveries (200 by
/// default), each call recorded with whether its Standard Webhooks signature verified under ``secret``. Scripts
/// drive it with `POST /control/app-hooks {"path", "status"?, "body"?, "delayMs"?, "times"?}` and read what
/// arrived with `GET /control/app-hooks`.
public final class StubAppHooks: @unchecked Sendable {
    /// The secret the stub verifies with, as a `secretFile` holds it.
    public static let secret = "whsec_c3R1Yi1hcHAtaG9vay1zZWNyZXQtMDEyMzQ1Njc4OQ=="
    /// The path of hook `name` (`beforeCreate`, `beforeSignIn`, or any).
    public static func hookPath(_ name: String) -> String { "/app/hooks/\(name)" }
    /// The most calls kept (the newest).
    public static let keptCalls = 10_000
    /// The path of the event receiver.
    public static let eventsPath = "/app/events"

    /// A scripted answer.
    public struct Answer: Sendable {
        /// The status.
        public var status: Int
        /// The body.
        public var body: JSONValue
        /// A wait before answering (to time the broker out).
        public var delay: Duration
        /// How many calls get it before the default answer returns (nil: every call).
        public var times: Int?

        /// Creates an answer.
        public init(status: Int = 200, body: JSONValue = .object([:]), delay: Duration = .zero, times: Int? = nil) {
            self.status = status
            self.body = body
            self.delay = delay
            self.times = times
        }
    }

    /// One call received.
    public struct Call: Sendable {
        /// The path called.
        public var path: String
        /// The header fields, names lower-cased.
        public var headers: [String: String]
        /// The body as parsed.
        public var body: JSONValue?
        /// Whether the signature verified under ``StubAppHooks/secret`` (within five minutes of now).
        public var verified: Bool
    }

    // Guarded by `lock`.
    private var answers: [String: Answer] = [:]
    private var received: [Call] = []
    private let lock = NSLock()

    init() {}

    /// Writes ``secret`` to a new file and returns its path (for `secretFile`).
    public static func writeSecretFile() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("app-hook-secret-\(UUID().uuidString)")
        try Data(secret.utf8).write(to: url)
        return url.path
    }

    /// Scripts the answer of `path`.
    public func script(_ path: String, _ answer: Answer) { lock.withLock { answers[path] = answer } }
    /// Every call received so far, in order.
    public var calls: [Call] { lock.withLock { received } }
    /// The calls received at `path`.
    public func calls(to path: String) -> [Call] { calls.filter { $0.path == path } }

    func addRoutes(_ router: inout Router) {
        router.add("POST", "/app/hooks/{name}") { [self] request, _ in try await receive(request) }
        router.add("POST", Self.eventsPath) { [self] request, _ in try await receive(request) }
        router.add("POST", "/control/app-hooks") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            guard let path = body["path"]?.stringValue else { return .json(400, ["error": "path is required"]) }
            script(
                path,
                Answer(
                    status: Int(body["status"]?.intValue ?? 200), body: body["body"] ?? .object([:]),
                    delay: .milliseconds(max(0, min(body["delayMs"]?.intValue ?? 0, 30_000))),
                    times: body["times"]?.intValue.map(Int.init)))
            return .json(200, .object([:]))
        }
        router.add("GET", "/control/app-hooks") { [self] _, _ in
            let list = calls.map { call -> JSONValue in
                .object([
                    "path": .string(call.path), "verified": .bool(call.verified), "body": call.body ?? .null,
                    "webhookId": call.headers["webhook-id"].map(JSONValue.string) ?? .null,
                ])
            }
            return .json(200, .object(["calls": .array(list)]))
        }
    }

    private func receive(_ request: HTTPRequest) async throws -> HTTPResponse {
        let call = Call(
            path: request.path, headers: request.headers,
            body: JSONValue.parse(request.body), verified: Self.verifies(request))
        let answer = lock.withLock { () -> Answer in
            received.append(call)
            // A bench sends hundreds of thousands: the last ones are enough to look at.
            if received.count > Self.keptCalls { received.removeFirst(received.count - Self.keptCalls) }
            guard var answer = answers[request.path] else { return Answer() }
            if let times = answer.times {
                answer.times = times - 1
                answers[request.path] = times <= 1 ? nil : answer
            }
            return answer
        }
        if answer.delay > .zero { try await Task.sleep(for: answer.delay) }
        return .json(answer.status, answer.body)
    }

    /// Whether `request` carries a valid signature under ``secret``, sent within five minutes of now.
    static func verifies(_ request: HTTPRequest) -> Bool {
        let headers = request.headers
        guard let id = headers["webhook-id"], let stamp = headers["webhook-timestamp"].flatMap({ Int64($0) }),
            let signatures = headers["webhook-signature"], let key = WebhookSecret(text: secret),
            abs(Date().timeIntervalSince1970 - Double(stamp)) < 300
        else { return false }
        let expected = WebhookSigner(secret: key).signature(id: id, timestamp: stamp, body: request.body)
        return signatures.split(separator: " ").contains { $0 == expected }
    }
}
