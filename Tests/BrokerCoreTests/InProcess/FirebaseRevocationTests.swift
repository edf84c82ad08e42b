import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 2, "Revoking a uid's Firebase sessions": with a service account configured, a takeover, an
/// admin revocation and a deletion queue a `firebase.revoke` job in their own transaction, and the outbox delivers
/// it once to Firebase's admin API (the stubs').
@Suite struct FirebaseRevocationTests {
    static let adminToken = "an-admin-token-of-32-characters!"

    static func revocations(_ broker: InProcessBroker, _ uid: String) async throws -> [OutboxJob] {
        await broker.store.outboxJobs(uid: AccountID(uid), limit: 10).filter { $0.kind == .firebaseRevoke }
    }

    @Test func aTakeoverQueuesTheRevocationAndTheOutboxDeliversItOnce() async throws {
        let broker = try await InProcessBroker.start(serviceAccount: true)
        let squatter = await broker.post("/v1/signup", ["email": "victim@example.com", "password": "squatter-pass"])
        let uid = try #require(squatter.json?["user"]?["uid"]?.stringValue)
        #expect(try await Self.revocations(broker, uid).isEmpty)
        let owner = await broker.post(
            "/v1/signin/google",
            ["idToken": .string(try broker.stubs.idToken(
                "google", claims: ["sub": "g-owner", "email": "victim@example.com", "email_verified": true]))])
        #expect(owner.status == 200)
        let queued = try await Self.revocations(broker, uid)
        #expect(queued.count == 1)
        #expect(queued.first?.state == .pending)

        let admin = try #require(broker.services.firebaseAdmin)
        let worker = OutboxWorker(store: broker.store)
        await worker.register(.firebaseRevoke, FirebaseRevokeHandler(client: admin))
        _ = try await worker.runOnce()
        _ = try await worker.runOnce()
        #expect(broker.stubs.firebase.revocations.map(\.uid) == [uid])
        #expect(broker.stubs.firebase.revocations.first?.project == "stub-project")
        #expect(try await Self.revocations(broker, uid).map(\.state) == [.delivered])
    }

    @Test func anAdminRevocationAndADeletionQueueOneEach() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.adminToken, serviceAccount: true)
        let first = await broker.post("/v1/signup", ["email": "a@example.com", "password": "secret-1"])
        let uid = try #require(first.json?["user"]?["uid"]?.stringValue)
        let revoke = await broker.post(
            "/admin/v1/users/\(uid)/revoke-sessions", [:], headers: ["Authorization": "Bearer " + Self.adminToken])
        #expect(revoke.status == 204)
        #expect(try await Self.revocations(broker, uid).count == 1)
        let again = await broker.post("/v1/signin/password", ["email": "a@example.com", "password": "secret-1"])
        let idToken = try #require(again.json?["idToken"]?.stringValue)
        #expect(await broker.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer " + idToken]).status == 204)
        #expect(try await Self.revocations(broker, uid).count == 2)
    }

    /// The Kakao `email-password` link of an imported workaround account ends its Firebase sessions too: whoever
    /// knew the public Kakao id could have signed in to Firebase with it.
    @Test func aKakaoLegacyLinkQueuesTheRevocation() async throws {
        let broker = try await InProcessBroker.start(kakaoMapping: "email-password", serviceAccount: true)
        let uid = AccountID("firebase-kakao-uid")
        let imported = Account(
            id: uid, email: "lee@example.kr", createdAt: Date(),
            password: .chosen(try await SaltedDigestPasswordHasher().hash("Optional(4100005151)")), origin: .import)
        try await broker.store.create(imported)
        let user = KakaoStubUser(id: 4_100_005_151, email: "lee@example.kr")
        let kakao = await broker.post("/v1/signin/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: user))])
        #expect(kakao.status == 200)
        #expect(kakao.json?["user"]?["uid"] == "firebase-kakao-uid")
        #expect(try await Self.revocations(broker, uid.rawValue).count == 1)
        #expect(await broker.store.account(id: uid)?.password?.hash == nil)
    }

    /// Issue 12: a takeover of an imported account (its email never verified in Firebase) keeps the Firebase uid,
    /// removes its password and other identities, ends its broker sessions and queues the revocation of its
    /// Firebase sessions, the ones that matter most for a user who came from Firebase.
    @Test func aTakeoverOfAnImportedAccountKeepsTheUidAndEndsItsFirebaseSessions() async throws {
        let broker = try await InProcessBroker.start(serviceAccount: true)
        let uid = AccountID("firebase-uid-of-squatted")
        let imported = Account(
            id: uid, email: "owner@example.com", emailVerified: false, createdAt: Date(),
            identities: [Identity(provider: ProviderID("apple"), subject: "squatter-apple", email: nil, linkedAt: Date())],
            password: .chosen(try await SaltedDigestPasswordHasher().hash("squatter-pass")), origin: .import)
        try await broker.store.create(imported)
        let squatter = await broker.post("/v1/signin/password", ["email": "owner@example.com", "password": "squatter-pass"])
        #expect(squatter.status == 200)
        let squattersRefresh = try #require(squatter.json?["refreshToken"]?.stringValue)
        #expect(try await Self.revocations(broker, uid.rawValue).isEmpty)

        let owner = await broker.post(
            "/v1/signin/google",
            ["idToken": .string(try broker.stubs.idToken(
                "google", claims: ["sub": "g-owner", "email": "owner@example.com", "email_verified": true]))])
        #expect(owner.status == 200)
        #expect(owner.json?["user"]?["uid"] == "firebase-uid-of-squatted")
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.password?.hash == nil)
        #expect(account.identities.map(\.provider.rawValue) == ["google"])
        #expect(account.emailVerified)
        #expect(account.origin == .import)
        #expect(try await Self.revocations(broker, uid.rawValue).count == 1)
        let refreshed = await broker.post("/v1/token", ["refreshToken": .string(squattersRefresh)])
        #expect(refreshed.errorCode == "INVALID_REFRESH_TOKEN")
        let events = await broker.store.auditEvents(uid: uid, before: nil, limit: 10).map(\.action.rawValue)
        #expect(events.contains("take_over"))
    }

    @Test func withoutAServiceAccountNothingIsQueued() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.adminToken)
        let session = await broker.post("/v1/signup", ["email": "b@example.com", "password": "secret-1"])
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)
        _ = await broker.post(
            "/admin/v1/users/\(uid)/revoke-sessions", [:], headers: ["Authorization": "Bearer " + Self.adminToken])
        #expect(try await Self.revocations(broker, uid).isEmpty)
        #expect(broker.services.firebaseAdmin == nil)
    }
}
