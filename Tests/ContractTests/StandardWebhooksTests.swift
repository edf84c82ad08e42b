import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Hook calls and event deliveries as the reference implementation sees them: a receiver in Python that verifies
/// every request with the `standardwebhooks` package from PyPI (not the broker's code), against a live broker over
/// HTTP, libcurl and SQLite. `.ci/run` installs the package in a virtual environment and names its Python in
/// `BROKER_TEST_WEBHOOKS_PYTHON`.
@Suite struct StandardWebhooksTests {
    static let python = ProcessInfo.processInfo.environment["BROKER_TEST_WEBHOOKS_PYTHON"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// The receiver: prints its port, logs each request as a JSON line (path, verified, id, body), and answers:
    /// `beforeCreate` denies addresses starting with `blocked`, `beforeSignIn` adds a claim, and an event's first
    /// attempt gets a 500 (its retry a 200).
    static let receiver = #"""
        import http.server, json, sys
        from standardwebhooks.webhooks import Webhook
        secret, log = sys.argv[1], sys.argv[2]
        seen = set()
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args): pass
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    payload = Webhook(secret).verify(body, headers)
                    verified = True
                except Exception:
                    payload, verified = json.loads(body or b"null"), False
                wid = headers.get("webhook-id")
                with open(log, "a") as f:
                    f.write(json.dumps({"path": self.path, "verified": verified, "id": wid, "body": payload}) + "\n")
                status, answer = 200, {}
                if self.path == "/hooks/beforeCreate" and payload["user"]["email"].startswith("blocked"):
                    answer = {"deny": {"message": "Not this one."}}
                elif self.path == "/hooks/beforeSignIn":
                    answer = {"customClaims": {"tier": "gold"}}
                elif self.path == "/events" and wid not in seen:
                    seen.add(wid)
                    status = 500
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("listening", server.server_address[1], flush=True)
        server.serve_forever()
        """#

    @Test(.enabled(if: python != nil, "set BROKER_TEST_WEBHOOKS_PYTHON to a python with standardwebhooks"))
    func everyCallAndDeliveryVerifiesWithTheReferenceImplementation() async throws {
        let python = try #require(Self.python)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("receiver.py")
        try Self.receiver.write(to: script, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("calls.jsonl")
        let secretFile = try StubAppHooks.writeSecretFile()
        let child = try ChildProcess(
            python, [script.path, StubAppHooks.secret, log.path], environment: ["PATH": "/usr/bin:/bin"])
        defer { child.terminate(SIGKILL) }
        let line = try await child.waitForLog("listening", onStandardOutput: true, seconds: 30)
        let port = try #require(line.split(separator: " ").last.map(String.init))
        let base = "http://127.0.0.1:\(port)"
        let configure: @Sendable (JSONValue) -> JSONValue = { document in
            guard case .object(var members) = document else { return document }
            func hook(_ name: String) -> JSONValue {
                ["url": .string("\(base)/hooks/\(name)"), "secretFile": .string(secretFile), "timeoutMs": 5000]
            }
            members["hooks"] = ["beforeCreate": hook("beforeCreate"), "beforeSignIn": hook("beforeSignIn")]
            members["events"] = [
                "endpoints": [
                    [
                        "url": .string("\(base)/events"), "secretFile": .string(secretFile),
                        "types": ["user.created", "user.signed_in"],
                    ]
                ]
            ]
            return .object(members)
        }
        try await withBroker(configure: configure) { broker in
            let blocked = try await broker.post(
                "/v1/signup", ["email": "blocked@example.com", "password": "secret-123"])
            #expect(blocked.status == 403 && blocked.errorCode == "BLOCKED_BY_HOOK")
            #expect(blocked.json?["error"]?["message"]?.stringValue == "Not this one.")
            #expect(try await broker.store.account(email: "blocked@example.com") == nil)

            let created = try await broker.post("/v1/signup", ["email": "ok@example.com", "password": "secret-123"])
            #expect(created.status == 201)
            let stored = try #require(try await broker.store.account(email: "ok@example.com"))
            #expect(stored.customClaims.flatMap { JSONValue.parse(Array($0.utf8)) } == ["tier": "gold"])

            // The outbox delivers the two events; each first attempt is refused with a 500 and retried.
            let worker = OutboxWorker(store: broker.store, settings: OutboxSettings(pollInterval: 0.1))
            await worker.register(
                .event, EventDeliveryHandler(settings: broker.services.config.events, client: try CurlHTTPClient()))
            let running = Task { await worker.run() }
            let deadline = Date() + 20
            while Date() < deadline {
                let jobs = try await broker.store.outboxJobs(uid: nil, limit: 10).filter { $0.kind == .event }
                if jobs.count == 2 && jobs.allSatisfy({ $0.state == .delivered }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            await worker.stop()
            await running.value

            let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap {
                JSONValue.parse(Array($0.utf8))
            }
            #expect(!calls.isEmpty && calls.allSatisfy { $0["verified"] == true }, "\(calls)")
            let paths = calls.compactMap { $0["path"]?.stringValue }
            #expect(
                paths.filter { $0.hasPrefix("/hooks/") } == [
                    "/hooks/beforeCreate", "/hooks/beforeCreate", "/hooks/beforeSignIn",
                ])
            let events = calls.filter { $0["path"]?.stringValue == "/events" }
            #expect(events.count == 4, "each of the two events refused once, then accepted")
            let byID = Dictionary(grouping: events) { $0["id"]?.stringValue ?? "" }
            #expect(byID.count == 2 && byID.values.allSatisfy { $0.count == 2 })
            let types = Set(events.compactMap { $0["body"]?["type"]?.stringValue })
            #expect(types == ["user.created", "user.signed_in"])
            #expect(events.allSatisfy { $0["body"]?["data"]?["uid"]?.stringValue == stored.id.rawValue })
        }
    }
}
