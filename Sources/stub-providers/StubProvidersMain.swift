import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation

/// `stub-providers [--port N] [--host H] [--write-config FILE] [--detach]`: serves the stand-ins until SIGTERM or
/// SIGINT.
enum StubProvidersMain {
    static let usage = usageHead + "\nEndpoints for scripts (minting, faults, what providers send the broker):\n"
        + StubProviders.controlEndpointsText

    static let usageHead = """
        usage: stub-providers [--port 8090] [--host 127.0.0.1] [--write-config FILE [--service-account FILE]] [--detach]
               stub-providers --help | -h | --version
        Serves local stand-ins for Google, Apple, Kakao, Naver, LINE and one OpenID Connect issuer (JWKS, token
        minting, the providers' user APIs, OIDC discovery) until SIGTERM or SIGINT. --write-config FILE writes a
        broker config pointing at them, once they listen. --detach returns once they listen and FILE is written,
        leaving them running in the background (it prints the kill command that stops them):
            swift run stub-providers --port 0 --write-config /tmp/stub-broker.json --detach
            swift run broker serve --config /tmp/stub-broker.json --database /tmp/stub-broker.sqlite
        --service-account FILE writes a throwaway Firebase service account for local use (its key is made here and
        is valid nowhere; its token_uri is the stubs') and names it in the config: sign-ins then answer a
        customToken, as with a real one.
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
        if arguments.contains("--detach") {
            return await detach(arguments: arguments.filter { $0 != "--detach" }, environment: environment)
        }
        let detached = environment[detachedVariable] == "1"
        if detached { setsid() }  // out of the starting terminal's process group: its Ctrl-C is not for us
        do {
            var port = Int(environment["STUB_PROVIDERS_PORT"] ?? "") ?? 8090
            var host = environment["STUB_PROVIDERS_HOST"] ?? "127.0.0.1"
            var configFile: String?
            var serviceAccountFile: String?
            var index = 0
            while index < arguments.count {
                switch arguments[index] {
                case "--write-config" where index + 1 < arguments.count:
                    configFile = arguments[index + 1]
                    index += 1
                case "--service-account" where index + 1 < arguments.count:
                    serviceAccountFile = arguments[index + 1]
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
            if serviceAccountFile != nil && configFile == nil {
                throw ConfigError(field: "--service-account", "goes with --write-config FILE\n\(usage)")
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
                let base = "http://\(host.contains(":") ? "[\(host)]" : host):\(bound)"
                if let serviceAccountFile {
                    try writeServiceAccount(to: serviceAccountFile, stubsAt: base)
                    say("  service account (local use only): \(serviceAccountFile)")
                }
                try writeConfig(to: configFile, stubsAt: base, serviceAccountFile: serviceAccountFile)
                say("  broker config: \(configFile) (broker serve --config \(configFile))")
            }
            say("  JWKS: /google/jwks /apple/jwks /kakao/jwks; Kakao API: /kakao/v1/user/access_token_info /kakao/v2/user/me")
            say("  mint: POST /{google,apple,kakao}/token {\"claims\":{...}}; POST /kakao/users {\"id\":1,\"email\":\"...\"}")
            say("  faults: POST /control/kakao {\"fault\":\"down|slow|hang|invalid|misconfigured|userMismatch|none\",\"delayMs\":100}")
            say("  Naver: /naver/v1/nid/me; LINE: /line/oauth2/v2.1/{certs,verify} /line/v2/profile; OIDC: /oidc/.well-known/openid-configuration")
            say("  mint: POST /naver/users {\"id\":\"...\"}; POST /line/users {\"userId\":\"U...\"}; POST /{line,oidc}/token {\"claims\":{...}}")
            say("  faults: POST /control/{naver,line,oidc} {\"fault\":\"down|slow|hang|refusing|misconfigured|none\",\"delayMs\":100}")
            if detached {
                let pid = getpid()
                say("\(detachedMarker) (pid \(pid)); stop them with: kill \(pid)")
                // The starting process reads our output until it ends; from now on nobody does.
                let null = open("/dev/null", O_RDWR)
                for stream: Int32 in [0, 1, 2] { dup2(null, stream) }
                close(null)
            }
            _ = await termination.wait()
            await stubs.stop()
            withExtendedLifetime(termination) {}
            return 0
        } catch {
            FileHandle.standardError.write(Data("stub-providers: \(error)\n".utf8))
            return 1
        }
    }

    /// Set in the environment of the copy `--detach` starts.
    static let detachedVariable = "STUB_PROVIDERS_DETACHED"
    /// The last line a detached copy prints once it listens and its config is written.
    static let detachedMarker = "stub-providers running in the background"

    /// `--detach`: starts this executable again without `--detach`, copies its output until it says it listens
    /// (and has written the config), and returns 0 leaving it running; if it exits first, returns its status.
    static func detach(arguments: [String], environment: [String: String]) async -> Int32 {
        do {
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            var childEnvironment = environment
            childEnvironment[detachedVariable] = "1"
            let child = try ChildProcess(executable, arguments, environment: childEnvironment)
            while !child.stdout.contains("\(detachedMarker) ") || !child.stdout.hasSuffix("\n") {
                if !child.isRunning {
                    let status = try await child.wait(seconds: 10)
                    FileHandle.standardOutput.write(Data(child.stdout.utf8))
                    FileHandle.standardError.write(Data(child.stderr.utf8))
                    return status == 0 ? 1 : status
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            child.disown()
            FileHandle.standardOutput.write(Data(child.stdout.utf8))
            FileHandle.standardError.write(Data(child.stderr.utf8))
            return 0
        } catch {
            FileHandle.standardError.write(Data("stub-providers: --detach: \(error)\n".utf8))
            return 1
        }
    }

    /// Writes a broker config pointing at stubs at `base`, for a broker on 127.0.0.1:8080 (its default).
    static func writeConfig(to path: String, stubsAt base: String, serviceAccountFile: String? = nil) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var document = StubProviders.brokerConfig(stubsAt: base, serviceAccountFile: serviceAccountFile)
        if serviceAccountFile != nil, case .object(var top) = document {
            // The admin API calls (session revocations) go to the stubs too.
            top["firebase"] = [
                "serviceAccountFile": serviceAccountFile.map(JSONValue.string) ?? .null,
                "apiBaseUrl": .string(base + StubFirebase.apiPath),
            ]
            document = .object(top)
        }
        let data = try encoder.encode(document)
        do {
            // Atomic: whoever waits for the file never reads half of it.
            try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ConfigError(field: "--write-config", "cannot write \(path)")
        }
    }

    /// Writes a throwaway service account whose `token_uri` is the stubs' (``TestServiceAccount``).
    static func writeServiceAccount(to path: String, stubsAt base: String) throws {
        do {
            let json = try TestServiceAccount.json(tokenURI: base + StubFirebase.tokenPath)
            try Data(json.serialized()).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ConfigError(field: "--service-account", "cannot write \(path)")
        }
    }

    /// Writes a line straight to standard output (unbuffered, so scripts see the port at once).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
