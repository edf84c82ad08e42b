import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// schemathesis (a pinned PyPI version; `.ci/run` installs it) against a live broker and the stub providers, over
/// loopback: requests generated from `GET /openapi.json`, and every answer checked against the document. Runs only
/// when `BROKER_TEST_SCHEMATHESIS` names the `schemathesis` executable.
@Suite struct SchemathesisTests {
    static let executable = ProcessInfo.processInfo.environment["BROKER_TEST_SCHEMATHESIS"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// The checks run: no 5xx; status, content type, headers and body as the document says; and what the schema
    /// forbids is refused with a 4xx.
    static let checks = [
        "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_headers_conformance",
        "response_schema_conformance", "negative_data_rejection",
    ]

    /// Examples per operation (`BROKER_TEST_SCHEMATHESIS_EXAMPLES`, 1 to 1000, default 40).
    static var maxExamples: Int {
        let text = ProcessInfo.processInfo.environment["BROKER_TEST_SCHEMATHESIS_EXAMPLES"] ?? ""
        return Int(text).map { min(max($0, 1), 1000) } ?? 40
    }

    /// The wall-clock bound of one run, after which schemathesis is stopped and the test fails.
    static let timeLimitSeconds: Double = 900

    /// The run's configuration: each security scheme's token, and a real uid for the admin operations on one
    /// user (generated uids find nobody, so only 404s would be checked). Values come from the environment.
    static let configuration = #"""
        # No cache of earlier failures in the working directory: each run stands alone.
        [cache]
        enabled = false

        [auth.openapi.idToken]
        bearer = "${BROKER_ST_ID_TOKEN}"

        [auth.openapi.adminToken]
        bearer = "${BROKER_ST_ADMIN_TOKEN}"

        [[operations]]
        include-path-regex = "^/admin/v1/users/\\{uid\\}"
        exclude-method = "DELETE"
        parameters = { uid = "${BROKER_ST_UID}" }

        [[operations]]
        include-name = "DELETE /v1/me"
        headers = { Authorization = "Bearer ${BROKER_ST_DELETED_ID_TOKEN}" }

        """#

    @Test(
        .enabled(if: executable != nil, "set BROKER_TEST_SCHEMATHESIS to a schemathesis executable to run it"),
        .timeLimit(.minutes(20)))
    func schemathesisFindsNoServerErrorAndNoAnswerOutsideTheDocument() async throws {
        let executable = try #require(Self.executable)
        let adminToken = Hex.encode(SecureRandom.bytes(16))
        // Mail configured (at a port nothing listens on: the outbox keeps what it queues), so the email flows
        // answer as documented instead of 501 MAIL_NOT_CONFIGURED.
        let withMail: @Sendable (JSONValue) -> JSONValue = { document in
            guard case .object(var members) = document else { return document }
            members["mail"] = ["smtpUrl": "smtp://127.0.0.1:9", "from": "broker@example.com"]
            return .object(members)
        }
        try await withBroker(serviceAccount: true, adminToken: adminToken, configure: withMail) { broker in
            // One user whose ID token authenticates the /v1/me operations, one that DELETE /v1/me deletes (the
            // first would leave the others only 401s), another for the admin ones (an admin disable of the first
            // would leave them only 403s).
            let me = try await broker.post("/v1/signup", ["email": "me@example.com", "password": "correct horse"])
            let deleted = try await broker.post(
                "/v1/signup", ["email": "deleted@example.com", "password": "correct horse"])
            let managed = try await broker.post(
                "/v1/signup", ["email": "managed@example.com", "password": "battery staple"])
            #expect(me.status == 201 && deleted.status == 201 && managed.status == 201)
            let idToken = try #require(me.json?["idToken"]?.stringValue)
            let deletedIDToken = try #require(deleted.json?["idToken"]?.stringValue)
            let uid = try #require(managed.json?["user"]?["uid"]?.stringValue)

            let configFile = broker.directory.appendingPathComponent("schemathesis.toml")
            try Self.configuration.write(to: configFile, atomically: true, encoding: .utf8)
            let reports =
                ProcessInfo.processInfo.environment["BROKER_TEST_SCHEMATHESIS_REPORTS"].map {
                    URL(fileURLWithPath: $0)
                } ?? broker.directory.appendingPathComponent("schemathesis-report")
            let environment = ProcessInfo.processInfo.environment
            let childEnvironment = [
                "PATH": environment["PATH"] ?? "/usr/bin:/bin", "HOME": broker.directory.path, "LANG": "C.UTF-8",
                "BROKER_ST_ID_TOKEN": idToken, "BROKER_ST_ADMIN_TOKEN": adminToken, "BROKER_ST_UID": uid,
                "BROKER_ST_DELETED_ID_TOKEN": deletedIDToken,
                "NO_COLOR": "1",
            ]
            let seed = Int(environment["BROKER_TEST_SCHEMATHESIS_SEED"] ?? "") ?? 20_261_201
            // The apps' and operators' operations first, then the admin ones: an admin run reuses uids it has
            // seen (its stateful phase) and deleting the /v1/me user would leave the others only 401s.
            for (name, paths) in [
                ("native and operations", "^/(v1|healthz|readyz|metrics|openapi|\\.well-known)"), ("admin", "^/admin/"),
            ] {
                let child = try ChildProcess(
                    executable,
                    [
                        "--config-file", configFile.path, "run", broker.baseURL + "/openapi.json",
                        "--url", broker.baseURL, "--include-path-regex", paths,
                        // Its generated tokens are wrong: each would count towards the admin lockout of
                        // 127.0.0.1, and the operations after them would see only 429s.
                        "--exclude-operation-id", "adminConsoleSignIn",
                        "--checks", Self.checks.joined(separator: ","), "--max-examples", String(Self.maxExamples),
                        "--seed", String(seed), "--workers", "1", "--request-timeout", "30",
                        "--generation-with-security-parameters", "false", "--generation-database", "none",
                        "--no-color", "--output-sanitize", "false", "--report", "junit,har",
                        "--report-dir", reports.appendingPathComponent(name == "admin" ? "admin" : "native").path,
                    ],
                    environment: childEnvironment)
                let status: Int32
                do {
                    status = try await child.wait(seconds: Self.timeLimitSeconds)
                } catch {
                    child.terminate(SIGKILL)
                    Issue.record(
                        "schemathesis (\(name)) did not finish in \(Int(Self.timeLimitSeconds)) s:\n\(child.stdout.suffix(4000))"
                    )
                    return
                }
                // Its summary (operations, checks, what failed) in the test log.
                print("schemathesis (\(name)) exited \(status):\n\(child.stdout.suffix(6000))")
                #expect(
                    status == 0,
                    "schemathesis (\(name)) found problems:\n\(child.stdout.suffix(20_000))\n\(child.stderr.suffix(2000))"
                )
                // A run that tested nothing would also exit 0.
                #expect(child.stdout.contains(" passed"), "\(child.stdout.suffix(4000))")
            }
            let statuses = broker.logs.lines.compactMap { line -> Int? in
                guard let status = JSONValue.parse(Array(line.utf8))?["status"] else { return nil }
                return status.intValue.map(Int.init) ?? status.stringValue.flatMap { Int($0) }
            }
            #expect(statuses.count > 100, "the broker logged \(statuses.count) requests")
            #expect(statuses.filter { $0 >= 500 } == [], "the broker answered with 5xx")
        }
    }
}
