import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation

/// `broker demo` (the `broker-demo` executable, which `broker demo` runs): stub providers and a broker on a
/// temporary database; one sign-in per provider, printed as an app would receive it, then a password reset through
/// a local mail sink (``DemoResetFlow``). Nothing leaves this machine. It prints only URLs that answer: without
/// `keepRunning` the servers stop when the demo ends, so their addresses are not printed as something to open.
enum DemoCommand {
    /// What `broker-demo --help` prints; `broker demo --help` prints the same text from `broker`'s usage.
    static let usage = """
        usage: broker demo [--keep-running]   (or broker-demo [--keep-running])
        Starts local stub providers and a broker on a temporary database, runs one sign-in per provider and one
        refresh, and a password reset through a local mail sink, printing what an app gets back. With
        --keep-running both stay up until Ctrl-C. `broker demo --help` says more.
        """

    /// Runs the demo with the command line after the executable's name; the process's exit status.
    static func main(arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        if let stray = arguments.first(where: { $0 != "--keep-running" }) {
            printError("broker demo: \(stray) is not an option of this command\n\(usage)")
            return 1
        }
        do {
            return try await run(keepRunning: arguments.contains("--keep-running"))
        } catch {
            printError("broker demo: \(error)")
            return 1
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func run(keepRunning: Bool) async throws -> Int32 {
        let termination = keepRunning ? TerminationSignals() : nil
        let sink = await DemoMailSink.start()
        let harness: BrokerHarness
        do {
            harness = try await BrokerHarness.start(serviceAccount: true) { config in
                guard case .object(var members) = config else { return config }
                members["mail"] = DemoResetFlow.mailSection(sink)
                return .object(members)
            }
        } catch {
            sink.stop()
            throw error
        }
        let outbox = OutboxWorker(store: harness.store)
        let handler = MailOutboxHandler(mailer: sink.mailer(), from: "Demo App <no-reply@demo.example.com>")
        await outbox.register(.mail, handler)
        if keepRunning {
            print(
                "Stub providers at \(harness.stubs.baseURL); broker at \(harness.baseURL) on a temporary SQLite"
                    + " database.\n")
        } else {
            print("Stub providers and a broker on a temporary SQLite database, both stopped when the demo ends")
            print("(run `broker demo --keep-running` to keep them answering).\n")
        }
        do {
            let rawNonce = "demo-nonce-\(UUID().uuidString)"
            let steps: [(String, String, JSONValue)] = [
                (
                    "Google", "/v1/signin/google",
                    [
                        "idToken": .string(
                            try harness.stubs.idToken(
                                "google",
                                claims: [
                                    "sub": "109876543210", "email": "jiwoo@example.com", "email_verified": true,
                                    "name": "Jiwoo Park",
                                ]))
                    ]
                ),
                (
                    "Apple (with nonce)", "/v1/signin/apple",
                    [
                        "identityToken": .string(
                            try harness.stubs.idToken(
                                "apple",
                                claims: [
                                    "sub": "001234.abcdef.0987", "email": "x7k2@privaterelay.appleid.com",
                                    "email_verified": "true", "nonce": .string(TestTokens.hashedNonce(rawNonce)),
                                ])),
                        "rawNonce": .string(rawNonce), "fullName": ["givenName": "Minjun", "familyName": "Lee"],
                    ]
                ),
                (
                    "Kakao (access token)", "/v1/signin/kakao",
                    [
                        "accessToken": .string(
                            harness.stubs.kakaoAccessToken(
                                for: KakaoStubUser(id: 4_100_000_001, email: "seoyeon@example.kr", nickname: "서연")))
                    ]
                ),
                (
                    "Naver (access token)", "/v1/signin/naver",
                    [
                        "accessToken": .string(
                            harness.stubs.naverAccessToken(
                                for: NaverStubUser(id: "32742776", email: "jimin@naver.com", nickname: "지민")))
                    ]
                ),
                (
                    "LINE (ES256 ID token)", "/v1/signin/line",
                    [
                        "idToken": .string(
                            try harness.stubs.lineIDToken(
                                claims: ["sub": "U4af4980629d2b8e1b0c3c1b3e5a6f7d8", "name": "Haruto"]))
                    ]
                ),
                (
                    "OpenID Connect by discovery (\"\(StubProviders.oidcProviderID)\": type oidc)",
                    "/v1/signin/\(StubProviders.oidcProviderID)",
                    [
                        "idToken": .string(
                            try harness.stubs.oidcIDToken(
                                claims: [
                                    "sub": "emp-1042", "email": "mina@corp.example", "email_verified": true,
                                    "name": "Mina Chen",
                                ]))
                    ]
                ),
            ]
            var lastRefreshToken: String?
            for (title, path, body) in steps {
                let response = try await harness.post(path, body)
                print("== \(title): POST \(path) -> \(response.status)")
                print(pretty(response.json ?? .null))
                print("")
                lastRefreshToken = response.json?["refreshToken"]?.stringValue ?? lastRefreshToken
            }
            if let lastRefreshToken {
                let response = try await harness.post("/v1/token", ["refreshToken": .string(lastRefreshToken)])
                let status = response.status
                print("== Next app launch: POST /v1/token -> \(status) (new ID token, rotated refresh token)\n")
            }
            print("Tokens are shortened here. customToken goes to Auth.auth().signIn(withCustomToken:) in an app using")
            print("Firebase.\n")
            let usedLink = try await DemoResetFlow.run(harness, sink: sink, outbox: outbox, showAddresses: keepRunning)
            if let termination {
                let jwks = "\(harness.baseURL)/.well-known/jwks.json"
                print("idToken verifies against \(jwks). Still answering until Ctrl-C:")
                for path in ["/healthz", "/.well-known/openid-configuration", "/.well-known/jwks.json", "/metrics"] {
                    print("  \(harness.baseURL)\(path)")
                }
                print("  stub providers: \(harness.stubs.baseURL)/google/jwks (and /apple, /kakao)")
                try await DemoResetFlow.leaveALinkToOpen(harness, sink: sink, outbox: outbox, used: usedLink)
                fflush(nil)  // print buffers when stdout is a pipe; the URLs must show before the wait
                _ = await termination.wait()
                withExtendedLifetime(termination) {}
            }
        } catch {
            await harness.stop()
            sink.stop()
            throw error
        }
        await harness.stop()
        sink.stop()
        return 0
    }

    /// Pretty JSON with long token strings shortened.
    static func pretty(_ value: JSONValue) -> String {
        func shorten(_ value: JSONValue) -> JSONValue {
            switch value {
            case .string(let text) where text.count > 60:
                return .string(String(text.prefix(40)) + "…(\(text.count) chars)")
            case .object(let members): return .object(members.mapValues(shorten))
            case .array(let items): return .array(items.map(shorten))
            default: return value
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(shorten(value)), as: UTF8.self)) ?? ""
    }
}
