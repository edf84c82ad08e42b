import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 10: with `kakao.adminKeyFile`, deleting an account unlinks its Kakao user through the outbox
/// (`POST {apiBaseUrl}/v1/user/unlink`, `KakaoAK`), queued in the deletion's transaction; Kakao being down does
/// not hold the deletion up, the unlink arrives once it is back, exactly once; a wrong key is refused for good.
@Suite struct KakaoUnlinkTests {
    static let adminToken = "an-admin-token-of-32-characters!"

    static func keyFile(_ key: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kakao-admin-\(UUID().uuidString)")
        try Data((key + "\n").utf8).write(to: file)
        return file.path
    }

    static func start(adminKey: String?, clock: ManualClock) async throws -> InProcessBroker {
        let file = try adminKey.map(keyFile)
        return try await InProcessBroker.start(clock: clock, adminToken: adminToken) { document in
            guard let file, case .object(var members) = document, case .object(var providers)? = members["providers"],
                case .object(var kakao)? = providers["kakao"]
            else { return document }
            kakao["adminKeyFile"] = .string(file)
            providers["kakao"] = .object(kakao)
            members["providers"] = .object(providers)
            return .object(members)
        }
    }

    static func worker(_ broker: InProcessBroker, clock: ManualClock) async -> OutboxWorker {
        let worker = OutboxWorker(store: broker.store, clock: clock, logger: Logger(sink: broker.logs))
        for (kind, handler) in broker.services.providers.outboxHandlers { await worker.register(kind, handler) }
        return worker
    }

    static func signIn(_ broker: InProcessBroker, id: Int64) async throws -> (uid: String, idToken: String) {
        let token = broker.stubs.kakaoAccessToken(for: KakaoStubUser(id: id, email: "k\(id)@example.kr"))
        let session = await broker.post("/v1/signin/kakao", ["accessToken": .string(token)])
        #expect(session.status == 201)
        return (
            try #require(session.json?["user"]?["uid"]?.stringValue), try #require(session.json?["idToken"]?.stringValue)
        )
    }

    static func unlinkJobs(_ broker: InProcessBroker, _ uid: String) async throws -> [OutboxJob] {
        await broker.store.outboxJobs(uid: AccountID(uid), limit: 10).filter { $0.kind == .kakaoUnlink }
    }

    @Test func aDeletionWhileKakaoIsDownAnswersAtOnceAndTheUnlinkArrivesOnceKakaoIsBack() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(adminKey: StubKakaoAdmin.adminKey, clock: clock)
        let (uid, idToken) = try await Self.signIn(broker, id: 4_100_000_777)
        broker.stubs.kakaoAdmin.setFault(.down)
        let deleted = await broker.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer " + idToken])
        #expect(deleted.status == 204)
        #expect(await broker.store.account(id: AccountID(uid)) == nil)
        #expect(try await Self.unlinkJobs(broker, uid).map(\.state) == [.pending])
        #expect(broker.stubs.kakaoAdmin.callCount == 0)

        let worker = await Self.worker(broker, clock: clock)
        #expect(try await worker.runOnce() == 1)
        #expect(broker.stubs.kakaoAdmin.callCount == 1)
        #expect(broker.stubs.kakaoAdmin.unlinks.isEmpty)
        let retried = try #require(try await Self.unlinkJobs(broker, uid).first)
        #expect(retried.state == .pending)
        #expect(retried.lastError?.contains("503") == true)
        #expect(try await worker.runOnce() == 0)  // not due before its backoff

        broker.stubs.kakaoAdmin.setFault(.none)
        clock.advance(by: 2)
        #expect(try await worker.runOnce() == 1)
        #expect(broker.stubs.kakaoAdmin.unlinks == [4_100_000_777])
        #expect(try await Self.unlinkJobs(broker, uid).map(\.state) == [.delivered])
        clock.advance(by: 120)
        #expect(try await worker.runOnce() == 0)
        #expect(broker.stubs.kakaoAdmin.unlinks == [4_100_000_777])
        #expect(broker.stubs.kakaoAdmin.callCount == 2)
    }

    @Test func aWrongAdminKeyIsAPermanentRefusalAuditedAndNeverRetried() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(adminKey: "not-the-admin-key", clock: clock)
        let (uid, _) = try await Self.signIn(broker, id: 4_100_000_778)
        let deleted = await broker.request(
            "DELETE", "/admin/v1/users/\(uid)", headers: ["Authorization": "Bearer " + Self.adminToken])
        #expect(deleted.status == 204)
        let worker = await Self.worker(broker, clock: clock)
        #expect(try await worker.runOnce() == 1)
        let job = try #require(try await Self.unlinkJobs(broker, uid).first)
        #expect(job.state == .refused)
        #expect(job.lastError?.contains("-401") == true)
        #expect(job.lastError?.contains("not-the-admin-key") == false)
        let refusals = await broker.store.auditEvents(uid: AccountID(uid), before: nil, limit: 10)
            .filter { $0.action == .outboxRefused }
        #expect(refusals.map(\.provider) == ["kakao.unlink"])
        clock.advance(by: 3600)
        #expect(try await worker.runOnce() == 0)
        #expect(broker.stubs.kakaoAdmin.unlinks.isEmpty)
        #expect(broker.stubs.kakaoAdmin.callCount == 1)
        #expect(!broker.logs.lines.joined().contains("not-the-admin-key"))
    }

    @Test func withoutAnAdminKeyADeletionQueuesNoUnlink() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(adminKey: nil, clock: clock)
        let (uid, idToken) = try await Self.signIn(broker, id: 4_100_000_779)
        #expect(await broker.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer " + idToken]).status == 204)
        #expect(try await Self.unlinkJobs(broker, uid).isEmpty)
        #expect(broker.services.providers.outboxHandlers.isEmpty)
    }

    @Test(arguments: ["missing", "empty", "two words"])
    func aBadAdminKeyFileIsRefusedNamingTheFieldNeverTheKey(_ kind: String) async throws {
        let path: String
        switch kind {
        case "missing": path = "/nonexistent/kakao-admin-key"
        case "empty": path = try Self.keyFile("  ")
        default: path = try Self.keyFile("secret-part other-part")
        }
        var document = StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9")
        if case .object(var members) = document, case .object(var providers)? = members["providers"],
            case .object(var kakao)? = providers["kakao"]
        {
            kakao["adminKeyFile"] = .string(path)
            providers["kakao"] = .object(kakao)
            members["providers"] = .object(providers)
            document = .object(members)
        }
        let config = try BrokerConfig(parsing: document.serialized(), environment: [:], sections: FirebaseModule.configSections)
        let context = ProviderContext(
            httpClient: ScriptedHTTPClient { _ in throw HTTPClientError(.connectionFailed) }, clock: SystemClock(), metrics: Metrics(), logger: .disabled, clockSkew: 60,
            allowInsecureURLs: true)
        do {
            _ = try ProviderRegistry(config: config, catalog: .builtIn, context: context)
            Issue.record("a bad adminKeyFile was accepted")
        } catch let error as ConfigError {
            #expect(error.field == "providers.kakao.adminKeyFile")
            #expect(!error.message.contains("secret-part"))
        }
    }
}
