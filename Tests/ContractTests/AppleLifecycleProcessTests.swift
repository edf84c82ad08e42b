import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Contract section 10 with real `broker serve` processes against the stub providers: Apple's refresh token never
/// reaches the database files in clear; a deletion while Apple is down answers at once, and the revocation arrives
/// exactly once after a restart; two instances on one PostgreSQL database do not both call Apple.
@Suite("Apple lifecycle in the broker process")
struct AppleLifecycleProcessTests {
    static let key = Base64.encode(Array(repeating: 23, count: 32))

    struct ConfigShapeError: Error {}

    /// Writes a config pointing at `stubs`, with `apple.clientSecret` (the stubs' team, key and client ids and
    /// their `.p8`), into `directory`; returns its path.
    static func writeConfig(_ stubs: StubProviders, into directory: URL) throws -> String {
        let keyFile = try stubs.appleAuth.writeKeyFile(into: directory)
        guard case .object(var members) = stubs.brokerConfig(), case .object(var providers)? = members["providers"],
            case .object(var apple)? = providers["apple"]
        else { throw ConfigShapeError() }
        apple["clientSecret"] = [
            "teamId": .string(StubAppleAuth.teamID), "keyId": .string(StubAppleAuth.keyID),
            "privateKeyFile": .string(keyFile), "clientId": .string(StubAppleAuth.clientID),
        ]
        providers["apple"] = .object(apple)
        members["providers"] = .object(providers)
        let path = directory.appendingPathComponent("providers.json").path
        try Data(JSONValue.object(members).serialized()).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Signs in with Apple through `instance` with a fresh code for `subject`; returns the session body.
    static func signIn(_ instance: BrokerProcess, _ stubs: StubProviders, subject: String) async throws -> JSONValue {
        let nonce = "nonce-" + Hex.encode(SecureRandom.bytes(6))
        let token = try stubs.idToken(
            "apple", claims: ["sub": .string(subject), "nonce": .string(Hex.encode(Digest.sha256(nonce)))])
        let response = try await instance.post(
            "/v1/signin/apple",
            [
                "identityToken": .string(token), "rawNonce": .string(nonce),
                "authorizationCode": .string(stubs.appleAuth.issueCode(subject: subject)),
            ])
        #expect(response.status == 201)
        return try #require(response.json)
    }

    /// The SQLite file and its WAL as text.
    static func fileText(_ path: String) -> String {
        [path, path + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
            .map { String(decoding: $0, as: UTF8.self) }.joined()
    }

    /// Waits (at most `tries` × 100 ms) for `condition`.
    static func eventually(tries: Int = 150, _ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<tries {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    @Test func anAppleOutageAcrossARestartStillRevokesExactlyOnceAndTheTokenIsNeverInTheFilesInClear() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        let configPath = try Self.writeConfig(stubs, into: directory)
        let database = directory.appendingPathComponent("broker.sqlite").path
        let environment = ["BROKER_CONFIG": configPath, "BROKER_DATABASE": database, "BROKER_ENCRYPTION_KEY": Self.key]

        let first = try await BrokerProcess.start(environment: environment)
        let session = try await Self.signIn(first, stubs, subject: "apple-restart-1")
        let refresh = try #require(stubs.appleAuth.issuedRefreshTokens.first)
        let idToken = try #require(session["idToken"]?.stringValue)
        for text in [refresh, Base64.encode(Array(refresh.utf8)), Base64URL.encode(Array(refresh.utf8))] {
            #expect(!Self.fileText(database).contains(text))
        }

        stubs.appleAuth.setFault(.down)
        let deleted = try await first.request("DELETE", "/v1/me", bearer: idToken)
        #expect(deleted.status == 204)
        _ = try await first.child.waitForLog("outbox attempt failed")
        #expect(stubs.appleAuth.revokedTokens.isEmpty)
        #expect(try await first.stop() == 0)
        for text in [refresh, Base64.encode(Array(refresh.utf8))] { #expect(!Self.fileText(database).contains(text)) }

        stubs.appleAuth.setFault(.none)
        let second = try await BrokerProcess.start(environment: environment)
        _ = try await second.child.waitForLog("outbox job delivered")
        #expect(stubs.appleAuth.revokedTokens == [refresh])
        #expect(try await second.stop() == 0)
        let third = try await BrokerProcess.start(environment: environment)
        try await Task.sleep(for: .milliseconds(1500))  // a few outbox polls: nothing is left to send
        #expect(try await third.stop() == 0)
        #expect(stubs.appleAuth.revokedTokens == [refresh])
        #expect(!first.child.stderr.contains(refresh) && !second.child.stderr.contains(refresh))
        await stubs.stop()
    }

    @Test func aCLIDeletionBesideARunningServerRevokesAndUnlinksThroughIt() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        var configPath = try Self.writeConfig(stubs, into: directory)
        // Kakao's admin key too, for the unlink.
        let adminKeyFile = directory.appendingPathComponent("kakao-admin-key").path
        try Data(StubKakaoAdmin.adminKey.utf8).write(to: URL(fileURLWithPath: adminKeyFile))
        var document = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: configPath)))))
        document = ConfigEdit.set(document, ["providers", "kakao", "adminKeyFile"], .string(adminKeyFile))
        configPath = directory.appendingPathComponent("providers-kakao.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: configPath))
        let database = directory.appendingPathComponent("broker.sqlite").path
        let environment = ["BROKER_CONFIG": configPath, "BROKER_DATABASE": database, "BROKER_ENCRYPTION_KEY": Self.key]

        let server = try await BrokerProcess.start(environment: environment)
        let session = try await Self.signIn(server, stubs, subject: "apple-cli-1")
        let uid = try #require(session["user"]?["uid"]?.stringValue)
        let refresh = try #require(stubs.appleAuth.issuedRefreshTokens.first)
        let kakao = stubs.kakaoAccessToken(for: KakaoStubUser(id: 4_100_000_901, email: nil))
        let linked = try await server.request(
            "POST", "/v1/me/identities/kakao", json: ["accessToken": .string(kakao)],
            bearer: try #require(session["idToken"]?.stringValue))
        #expect(linked.status == 200)

        let child = try ProcessTests.spawn(["admin", "users", "delete", uid], environment: environment)
        #expect(try await child.wait() == 0, "\(child.stderr)")
        // The running server's outbox finds the jobs the CLI queued.
        #expect(try await Self.eventually { stubs.appleAuth.revokedTokens == [refresh] && stubs.kakaoAdmin.unlinks == [4_100_000_901] })
        #expect(try await server.stop() == 0)
        #expect(stubs.appleAuth.revokedTokens == [refresh])
        #expect(stubs.kakaoAdmin.unlinks == [4_100_000_901])
        await stubs.stop()
    }

    @Test(.enabled(if: PostgresTestEnvironment.url != nil, "BROKER_TEST_POSTGRES_URL is not set (scripts/with-postgres.sh swift test sets it: docs/postgres.md#testing)"))
    func twoInstancesOnPostgresDoNotBothCallApple() async throws {
        let base = try #require(PostgresTestEnvironment.url)
        let schema = try await PostgresContractSchema.create(in: base)
        let directory = try ProcessTests.temporaryDirectory()
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = try Self.writeConfig(stubs, into: directory)
        let environment = ["BROKER_CONFIG": configPath, "BROKER_DATABASE": schema.url, "BROKER_ENCRYPTION_KEY": Self.key]
        let a = try await BrokerProcess.start(environment: environment)
        let b = try await BrokerProcess.start(environment: environment)
        var sessions: [String] = []
        var tokens: [String] = []
        for index in 0..<4 {
            let session = try await Self.signIn(index.isMultiple(of: 2) ? a : b, stubs, subject: "apple-pg-\(index)")
            sessions.append(try #require(session["idToken"]?.stringValue))
            tokens.append(try #require(stubs.appleAuth.issuedRefreshTokens.last))
        }
        // Apple is slow: each revocation is in flight while the other instance polls.
        stubs.appleAuth.setFault(.slow(milliseconds: 700))
        for (index, idToken) in sessions.enumerated() {
            let deleted = try await (index.isMultiple(of: 2) ? b : a).request("DELETE", "/v1/me", bearer: idToken)
            #expect(deleted.status == 204)
        }
        #expect(try await Self.eventually { stubs.appleAuth.revokedTokens.count >= 4 })
        try await Task.sleep(for: .milliseconds(2000))  // both instances poll again meanwhile
        #expect(stubs.appleAuth.revokedTokens.sorted() == tokens.sorted())
        #expect(stubs.appleAuth.revokeCallCount == 4)
        #expect(try await schema.count("outbox_jobs", where: "kind = 'apple.revoke' AND state = 'delivered'") == 4)
        _ = try await a.stop()
        _ = try await b.stop()
        await stubs.stop()
        await schema.drop()
    }
}
