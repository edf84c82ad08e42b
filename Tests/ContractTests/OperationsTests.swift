import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@Suite struct OperationsTests {
    @Test func healthAndMetricsAnswer() async throws {
        try await withBroker { broker in
            let health = try await broker.get("/healthz")
            #expect(health.status == 200)
            _ = try await broker.googleSignIn(["sub": "g-m"])
            _ = try await broker.post("/v1/signin/google", ["idToken": "bad"])
            let metrics = try await broker.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
            let text = String(decoding: metrics.body, as: UTF8.self)
            #expect(text.contains("# TYPE broker_http_requests_total counter"))
            #expect(text.contains(#"broker_http_requests_total{route="/v1/signin/{provider}",status="201"} 1"#))
            #expect(text.contains(#"broker_signins_total{provider="google",outcome="created"} 1"#))
            #expect(text.contains(#"broker_signins_total{provider="google",outcome="INVALID_TOKEN"} 1"#))
            #expect(text.contains(#"broker_jwks_refreshes_total{provider="google",outcome="ok"} 1"#))
            #expect(text.contains(#"broker_provider_call_seconds_count{provider="google",call="jwks"} 1"#))
        }
    }

    /// Every sample of /metrics belongs to a family with a `# HELP` and a `# TYPE` line before it.
    @Test func everyMetricHasHelpAndType() async throws {
        try await withBroker { broker in
            _ = try await broker.googleSignIn(["sub": "g-help"])
            let signUp = try await broker.post("/v1/signup", ["email": "help@example.com", "password": "long enough pw"])
            #expect(signUp.status == 201)
            let text = String(decoding: try await broker.get("/metrics").body, as: UTF8.self)
            var helped: Set<String> = []
            var typed: [String: String] = [:]
            var families: Set<String> = []
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 3).map(String.init)
                if words.first == "#" {
                    #expect(words.count >= 4 && ["HELP", "TYPE"].contains(words[1]), "\(line)")
                    guard words.count >= 4 else { continue }
                    if words[1] == "HELP" { helped.insert(words[2]) } else { typed[words[2]] = words[3] }
                    continue
                }
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                let family =
                    ["_bucket", "_sum", "_count"].first { name.hasSuffix($0) && typed[String(name.dropLast($0.count))] == "histogram" }
                    .map { String(name.dropLast($0.count)) } ?? name
                families.insert(family)
                #expect(helped.contains(family), "no HELP before \(line)")
                #expect(["counter", "histogram", "gauge"].contains(typed[family] ?? ""), "no TYPE before \(line)")
            }
            #expect(families.isSuperset(of: ["broker_http_requests_total", "broker_signins_total", "broker_signups_total"]))
            #expect(text.contains("# HELP broker_signups_total Accounts made by a sign-up (password or passkey), by provider and outcome.\n# TYPE broker_signups_total counter\n"))
        }
    }

    @Test func everyRequestGetsOneLogLineWithItsIDAndNoSecrets() async throws {
        try await withBroker { broker in
            let token = try broker.stubs.idToken("google", claims: ["sub": "g-log"])
            let response = try await broker.post(
                "/v1/signin/google", ["idToken": .string(token)], headers: ["X-Request-Id": "req-123"])
            #expect(response.headers["x-request-id"] == "req-123")
            let refresh = try #require(response.json?["refreshToken"]?.stringValue)
            let idToken = try #require(response.json?["idToken"]?.stringValue)
            let generated = try await broker.get("/healthz", headers: ["X-Request-Id": "bad id with spaces"])
            let generatedID = try #require(generated.headers["x-request-id"])
            #expect(generatedID != "bad id with spaces")
            let refused = try await broker.post("/v1/signin/google", ["idToken": .string(token + "x")])
            #expect(refused.status == 401)

            let lines = broker.logs.lines.compactMap { JSONValue.parse(Array($0.utf8)) }
            let requests = lines.filter { $0["msg"] == "request" }
            #expect(requests.count == 3)
            #expect(requests.first?["requestId"] == "req-123")
            #expect(requests.first?["status"] == .int(201))
            #expect(requests.first?["route"] == "/v1/signin/{provider}")
            #expect(requests.contains { $0["requestId"]?.stringValue == generatedID })
            for line in requests {
                // Numbers are JSON numbers: milliseconds with at most two decimals; the status an integer.
                let duration = try #require(line["durationMs"]?.doubleValue, "\(line)")
                #expect(duration >= 0)
                #expect(line["status"]?.intValue != nil && line["status"]?.stringValue == nil)
                // "2026-11-29T16:58:21.123Z": UTC with milliseconds.
                let time = line["time"]?.stringValue ?? ""
                #expect(time.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z/) != nil, "\(time)")
            }
            for raw in broker.logs.lines where raw.contains(#""msg":"request""#) {
                #expect(raw.firstMatch(of: /"durationMs":[0-9]+(\.[0-9]{1,2})?[,}]/) != nil, "\(raw)")
                #expect(raw.firstMatch(of: /"status":[0-9]{3}[,}]/) != nil, "\(raw)")
            }
            let all = broker.logs.lines.joined(separator: "\n")
            for secret in [token, refresh, idToken, String(token.split(separator: ".")[2])] {
                #expect(!all.contains(secret))
            }
        }
    }

    @Test func bodiesOver64KiBAreRefused() async throws {
        try await withBroker { broker in
            let padding = String(repeating: "a", count: 64 * 1024)
            let response = try await broker.request(
                "POST", "/v1/signin/google", body: Array("{\"idToken\":\"\(padding)\"}".utf8),
                headers: ["Content-Type": "application/json"])
            #expect(response.status == 413)
            #expect(response.errorCode == "PAYLOAD_TOO_LARGE")
            let unknown = try await broker.get("/nowhere")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "NOT_FOUND")
        }
    }

    @Test func cachedProviderKeysKeepWorkingWhileTheProviderIsDown() async throws {
        try await withBroker { broker in
            #expect(try await broker.googleSignIn(["sub": "g-1"]).status == 201)
            broker.stubs.setJWKSDown("google", true)
            #expect(try await broker.googleSignIn(["sub": "g-2"]).status == 201)
            // Apple's keys were never fetched: with its JWKS down, Apple sign-in is unavailable.
            broker.stubs.setJWKSDown("apple", true)
            let apple = try await broker.post(
                "/v1/signin/apple",
                ["identityToken": .string(try broker.stubs.idToken("apple", claims: ["nonce": .string(TestTokens.hashedNonce("n"))])), "rawNonce": "n"])
            #expect(apple.status == 503)
            #expect(apple.errorCode == "PROVIDER_UNAVAILABLE")
            #expect(apple.headers["retry-after"] != nil)
        }
    }

    @Test func anUnknownKidRefetchesOncePerThirtySeconds() async throws {
        let clock = ManualClock(Date())
        try await withBroker(clock: clock) { broker in
            #expect(try await broker.googleSignIn(["sub": "g-1"]).status == 201)
            #expect(broker.stubs.jwksFetchCount("google") == 1)
            // A key first used right after the scheduled (first) fetch is picked up: that fetch does not count.
            try broker.stubs.google.rotate()
            #expect(try await broker.googleSignIn(["sub": "g-2"]).status == 201)
            #expect(broker.stubs.jwksFetchCount("google") == 2)
            // Within 30 s of that unknown-kid refetch, another unknown kid is refused without a refetch.
            try broker.stubs.google.rotate()
            let early = try await broker.googleSignIn(["sub": "g-3"])
            #expect(early.status == 401)
            #expect(early.errorCode == "INVALID_TOKEN")
            #expect(broker.stubs.jwksFetchCount("google") == 2)
            #expect(try await broker.count("accounts") == 2)
            clock.advance(by: 31)
            #expect(try await broker.googleSignIn(["sub": "g-3"]).status == 201)
            #expect(try await broker.googleSignIn(["sub": "g-4"]).status == 201)
            #expect(broker.stubs.jwksFetchCount("google") == 3)
        }
    }

    @Test func signingKeysSurviveARestartAndRotatedKeysStayPublished() async throws {
        try await withBroker { broker in
            let response = try await broker.googleSignIn(["sub": "g-1"])
            let idToken = try #require(response.json?["idToken"]?.stringValue)
            let kid = KeyID(try #require(JWKSVerification.decode(idToken)?.header["kid"]?.stringValue))
            // A second broker on the same database (a restart) signs with the same key.
            let restarted = KeyRing(store: broker.store, clock: SystemClock(), algorithm: .es256, tokenLifetime: 3600)
            try await restarted.load()
            #expect(try await restarted.current().id == kid)
            // Rotation: a new signing key, the old one still published for the tokens it signed.
            try await broker.services.keys.rotate()
            let jwks = try await broker.jwks()
            #expect(jwks["keys"]?.arrayValue?.count == 2)
            #expect(JWKSVerification.claims(of: idToken, jwks: jwks) != nil)
            let next = try await broker.googleSignIn(["sub": "g-1"])
            let nextKid = JWKSVerification.decode(try #require(next.json?["idToken"]?.stringValue))?.header["kid"]
            #expect(nextKid?.stringValue != kid.rawValue)
        }
    }
}
