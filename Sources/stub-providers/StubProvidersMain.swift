import BrokerCore
import BrokerDrivers
import BrokerTesting
import Foundation

/// `stub-providers [--port N] [--host H]`: serves the stand-ins until SIGTERM or SIGINT.
enum StubProvidersMain {
    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        do {
            var port = Int(environment["STUB_PROVIDERS_PORT"] ?? "") ?? 8090
            var host = environment["STUB_PROVIDERS_HOST"] ?? "127.0.0.1"
            var index = 0
            while index < arguments.count {
                switch arguments[index] {
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
                    throw ConfigError(field: arguments[index], "unknown option (usage: stub-providers [--port N] [--host H])")
                }
                index += 1
            }
            let termination = TerminationSignals()
            let stubs = try StubProviders()
            // One broker (or bench) drives the stubs from one address with many connections.
            let server = MicroHTTPDServer(limits: .permissive)
            let bound = try stubs.start(server: server, host: host, port: port)
            say("stub-providers listening on http://\(host):\(bound)")
            say("  JWKS: /google/jwks /apple/jwks /kakao/jwks; Kakao API: /kakao/v1/user/access_token_info /kakao/v2/user/me")
            say("  mint: POST /{google,apple,kakao}/token {\"claims\":{...}}; POST /kakao/users {\"id\":1,\"email\":\"...\"}")
            say("  faults: POST /control/kakao {\"fault\":\"down|slow|hang|invalid|misconfigured|userMismatch|none\",\"delayMs\":100}")
            _ = await termination.wait()
            await stubs.stop()
            withExtendedLifetime(termination) {}
            return 0
        } catch {
            FileHandle.standardError.write(Data("stub-providers: \(error)\n".utf8))
            return 1
        }
    }

    /// Writes a line straight to standard output (unbuffered, so scripts see the port at once).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
