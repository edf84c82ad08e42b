import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Contract section 10 with a real `broker serve` process: Kakao's unlink callback (a wrong key changes nothing;
/// the right one ends the sessions and disables the account until the next Kakao sign-in) and Apple's signed
/// notifications (a replay, after the user came back, changes nothing).
@Suite("Provider webhooks in the broker process")
struct WebhookProcessTests {
    /// Starts the stubs and a broker whose Kakao entry names the stubs' admin key.
    static func start(in directory: URL) async throws -> (StubProviders, BrokerProcess) {
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        let adminKeyFile = directory.appendingPathComponent("kakao-admin-key").path
        try Data(StubKakaoAdmin.adminKey.utf8).write(to: URL(fileURLWithPath: adminKeyFile))
        let document = ConfigEdit.set(stubs.brokerConfig(), ["providers", "kakao", "adminKeyFile"], .string(adminKeyFile))
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: configPath))
        let environment = [
            "BROKER_CONFIG": configPath, "BROKER_DATABASE": directory.appendingPathComponent("broker.sqlite").path,
        ]
        return (stubs, try await BrokerProcess.start(environment: environment))
    }

    /// Sends a raw request to `instance`.
    static func send(
        _ instance: BrokerProcess, _ path: String, headers: [String: String], body: [UInt8]
    ) async throws -> Int {
        let client = try CurlHTTPClient()
        let response = try await client.send(
            HTTPClientRequest(
                method: "POST", url: instance.baseURL + path, headers: headers.map { ($0.key, $0.value) }, body: body,
                timeout: 10))
        await client.shutdown()
        return response.status
    }

    @Test func kakaosUnlinkCallbackEndsTheSessionsAndDisablesUntilTheNextKakaoSignIn() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (stubs, broker) = try await Self.start(in: directory)
        let user = KakaoStubUser(id: 4_300_000_001, email: "w@example.kr")
        let session = try await broker.post("/v1/signin/kakao", ["accessToken": .string(stubs.kakaoAccessToken(for: user))])
        #expect(session.status == 201)
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)
        let idToken = try #require(session.json?["idToken"]?.stringValue)

        var forged = StubProviders.KakaoUnlinkCallback(userID: user.id)
        forged.adminKey = "a-guessed-key"
        #expect(try await Self.send(broker, StubProviders.KakaoUnlinkCallback.path, headers: forged.headers, body: forged.body) == 401)
        #expect(try await broker.get("/v1/me", bearer: idToken).status == 200)

        let callback = StubProviders.KakaoUnlinkCallback(userID: user.id)
        #expect(try await Self.send(broker, StubProviders.KakaoUnlinkCallback.path, headers: callback.headers, body: callback.body) == 200)
        #expect(try await broker.get("/v1/me", bearer: idToken).status == 401)
        let refused = try await broker.post("/v1/signin/kakao", ["accessToken": .string(stubs.kakaoAccessToken(for: KakaoStubUser(id: 4_300_000_002)))])
        #expect(refused.status == 201)  // another user is unaffected

        let back = try await broker.post("/v1/signin/kakao", ["accessToken": .string(stubs.kakaoAccessToken(for: user))])
        #expect(back.status == 200)
        #expect(back.json?["user"]?["uid"]?.stringValue == uid)
        #expect(back.json?["user"]?["disabled"] == false)
        #expect(try await broker.stop() == 0)
        await stubs.stop()
    }

    @Test func appleNotificationsDisableAndAReplayAfterTheUserCameBackChangesNothing() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (stubs, broker) = try await Self.start(in: directory)
        func signIn() async throws -> InstanceResponse {
            let nonce = "nonce-" + Hex.encode(SecureRandom.bytes(6))
            let token = try stubs.idToken(
                "apple", claims: ["sub": "apple-process-1", "nonce": .string(Hex.encode(Digest.sha256(nonce)))])
            return try await broker.post("/v1/signin/apple", ["identityToken": .string(token), "rawNonce": .string(nonce)])
        }
        let session = try await signIn()
        #expect(session.status == 201)
        let idToken = try #require(session.json?["idToken"]?.stringValue)
        let notification = try stubs.appleNotification(type: "consent-revoked", subject: "apple-process-1")
        #expect(try await broker.post(StubProviders.appleNotificationPath, notification).status == 200)
        #expect(try await broker.get("/v1/me", bearer: idToken).status == 401)
        let again = try await signIn()
        #expect(again.status == 200)
        let newToken = try #require(again.json?["idToken"]?.stringValue)
        #expect(try await broker.post(StubProviders.appleNotificationPath, notification).status == 200)
        #expect(try await broker.get("/v1/me", bearer: newToken).status == 200)
        let forged = try stubs.appleNotification(
            type: "consent-revoked", subject: "apple-process-1", signingKey: try RSAPrivateKey.generate(bits: 2048))
        let refused = try await broker.post(StubProviders.appleNotificationPath, forged)
        #expect(refused.status == 401)
        #expect(refused.errorCode == "INVALID_WEBHOOK")
        #expect(try await broker.get("/v1/me", bearer: newToken).status == 200)
        #expect(try await broker.stop() == 0)
        await stubs.stop()
    }
}
