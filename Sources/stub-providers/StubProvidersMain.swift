import BrokerCore
import BrokerDrivers
import BrokerTesting
import Foundation

/// `stub-providers [--port N] [--host H] [--write-config FILE]`: serves the stand-ins until SIGTERM or SIGINT.
enum StubProvidersMain {
    static let usage = """
        usage: stub-providers [--port 8090] [--host 127.0.0.1] [--write-config FILE]
               stub-providers --help | -h | --version
        Serves local stand-ins for Google, Apple, Kakao, Naver, LINE and one OpenID Connect issuer (JWKS, token
        minting, the providers' user APIs, OIDC discovery) until SIGTERM or SIGINT. --write-config FILE writes a broker config pointing at them, once they listen:
            stub-providers --port 0 --write-config /tmp/stub-broker.json &
            broker serve --config /tmp/stub-broker.json --database /tmp/stub-broker.sqlite
        Environment: STUB_PROVIDERS_PORT, STUB_PROVIDERS_HOST, STUB_PROVIDERS_PUBLIC_URL (the stubs' URL as the
        broker reaches them, e.g. http://stub-providers:8090: the OIDC issuer names it).
        """

    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            say(usage)
            return 0
        }
        if arguments.contains("--version") {
            say("stub-providers \(BrokerVersion.current)")
            return 0
        }
        do {
            var port = Int(environment["STUB_PROVIDERS_PORT"] ?? "") ?? 8090
            var host = environment["STUB_PROVIDERS_HOST"] ?? "127.0.0.1"
            var configFile: String?
            var index = 0
            while index < arguments.count {
                switch arguments[index] {
                case "--write-config" where index + 1 < arguments.count:
                    configFile = arguments[index + 1]
                    index += 1
                case "--port" where index + 1 < arguments.count:
                    guard let value = Int(arguments[index + 1]), (0...65_535).contains(value) else {
                        throw ConfigError(field: "--port", "must be a port number")
                    }
                    port = value
                    index += 1
                case "--host" where index + 1 < arguments.count:
                    host = arguments[index + 1]
                    index += 1
                default:
                    throw ConfigError(field: arguments[index], "unknown option or missing value\n\(usage)")
                }
                index += 1
            }
            let termination = TerminationSignals()
            let stubs = try StubProviders()
            if let publicURL = environment["STUB_PROVIDERS_PUBLIC_URL"], !publicURL.isEmpty {
                stubs.oidcIssuer = (publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL) + "/oidc"
            }
            // One broker (or bench) drives the stubs from one address with many connections.
            let server = MicroHTTPDServer(limits: .permissive)
            let bound = try stubs.start(server: server, host: host, port: port)
            say("stub-providers listening on http://\(host):\(bound)")
            if let configFile {
                try writeConfig(to: configFile, stubsAt: "http://\(host.contains(":") ? "[\(host)]" : host):\(bound)")
                say("  broker config: \(configFile) (broker serve --config \(configFile))")
            }
            say("  JWKS: /google/jwks /apple/jwks /kakao/jwks; Kakao API: /kakao/v1/user/access_token_info /kakao/v2/user/me")
            say("  mint: POST /{google,apple,kakao}/token {\"claims\":{...}}; POST /kakao/users {\"id\":1,\"email\":\"...\"}")
            say("  faults: POST /control/kakao {\"fault\":\"down|slow|hang|invalid|misconfigured|userMismatch|none\",\"delayMs\":100}")
            say("  Naver: /naver/v1/nid/me; LINE: /line/oauth2/v2.1/{certs,verify} /line/v2/profile; OIDC: /oidc/.well-known/openid-configuration")
            say("  mint: POST /naver/users {\"id\":\"...\"}; POST /line/users {\"userId\":\"U...\"}; POST /{line,oidc}/token {\"claims\":{...}}")
            say("  faults: POST /control/{naver,line,oidc} {\"fault\":\"down|slow|hang|refusing|misconfigured|none\",\"delayMs\":100}")
            _ = await termination.wait()
            await stubs.stop()
            withExtendedLifetime(termination) {}
            return 0
        } catch {
            FileHandle.standardError.write(Data("stub-providers: \(error)\n".utf8))
            return 1
        }
    }

    /// Writes a broker config pointing at stubs at `base`, for a broker on 127.0.0.1:8080 (its default).
    static func writeConfig(to path: String, stubsAt base: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(StubProviders.brokerConfig(stubsAt: base))
        guard FileManager.default.createFile(atPath: path, contents: data + Data("\n".utf8)) else {
            throw ConfigError(field: "--write-config", "cannot write \(path)")
        }
    }

    /// Writes a line straight to standard output (unbuffered, so scripts see the port at once).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
