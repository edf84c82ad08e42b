import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 11, "The broker's own checks still hold here" (issue 25 finding 3): a custom token minted
/// before a takeover or a password reset of its uid, or before the uid was deleted (whole seconds: the same
/// second counts as before), signs nothing in on the Firebase listener and stores nothing; after an admin
/// revocation it still does, as in Firebase.
@Suite struct FirebaseCustomTokenCutoffTests {
    static let v1 = FirebaseEndpoints.identityToolkitPath
    static let owner = ["Authorization": "Bearer owner"]
    static let adminToken = "an-admin-token-of-32-characters!"

    /// A broker whose clock starts 0.2 s into a whole second, so "the same second" is certain.
    static func start(kakaoMapping: String = "link") async throws -> (InProcessBroker, ManualClock) {
        let clock = ManualClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 0.2))
        let broker = try await InProcessBroker.start(
            kakaoMapping: kakaoMapping, clock: clock, adminToken: adminToken, serviceAccount: true)
        return (broker, clock)
    }

    /// A custom token for `uid` signed by the test service account, issued at the clock's second.
    static func token(_ uid: String, _ clock: ManualClock) throws -> String {
        let second = Int64(clock.now.timeIntervalSince1970.rounded(.down))
        return try FirebaseClientAPITests.customToken(uid: uid, issuedAt: second)
    }

    static func signIn(_ broker: InProcessBroker, _ token: String) async -> TestResponse {
        await broker.firebasePost(v1 + "/accounts:signInWithCustomToken?key=k", ["token": .string(token), "returnSecureToken": true])
    }

    static func code(_ response: TestResponse) -> String? { FirebaseClientAPITests.code(response) }

    /// The refused sign-in answered `INVALID_CUSTOM_TOKEN` and changed nothing: no sign-in time, no session.
    static func expectRefused(
        _ broker: InProcessBroker, _ token: String, uid: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = await broker.store.account(id: AccountID(uid))
        let sessions = await broker.store.sessionSummary(accountID: AccountID(uid), at: broker.services.clock.now)
        let refused = await signIn(broker, token)
        #expect(refused.status == 400, sourceLocation: sourceLocation)
        #expect(code(refused) == "INVALID_CUSTOM_TOKEN", sourceLocation: sourceLocation)
        #expect(refused.json?["idToken"] == nil, sourceLocation: sourceLocation)
        #expect(await broker.store.account(id: AccountID(uid)) == before, sourceLocation: sourceLocation)
        #expect(await broker.store.sessionSummary(accountID: AccountID(uid), at: broker.services.clock.now) == sessions, sourceLocation: sourceLocation)
    }

    @Test func aSquattersTokenMintedBeforeTheTakeoverSignsNothingIn() async throws {
        let (broker, clock) = try await Self.start()
        // The squatter signs up with the victim's address on the listener and mints a custom token for the uid.
        let squatter = await broker.firebasePost(
            Self.v1 + "/accounts:signUp?key=k", ["email": "victim@example.com", "password": "squatter-pass"])
        let uid = try #require(squatter.json?["localId"]?.stringValue)
        let squattersToken = try Self.token(uid, clock)
        #expect(await Self.signIn(broker, squattersToken).status == 200)

        // The victim's verified Google sign-in takes the account over.
        clock.advance(by: 0.3)
        let google = try broker.stubs.idToken(
            "google", claims: ["sub": "g-victim", "email": "victim@example.com", "email_verified": true])
        let victim = await broker.firebasePost(
            Self.v1 + "/accounts:signInWithIdp?key=k",
            ["postBody": .string("providerId=google.com&id_token=\(google)"), "requestUri": "http://localhost",
             "returnSecureToken": true])
        #expect(victim.status == 200)
        #expect(victim.json?["localId"]?.stringValue == uid)
        #expect(await broker.store.customTokenCutoff(uid: AccountID(uid)) != nil)

        // The squatter's token, and one minted in the takeover's own second, sign nothing in.
        try await Self.expectRefused(broker, squattersToken, uid: uid)
        try await Self.expectRefused(broker, try Self.token(uid, clock), uid: uid)

        // A token minted in a later second works, and keeps working after an admin revocation (both kinds).
        clock.advance(by: 1)
        let later = try Self.token(uid, clock)
        #expect(await Self.signIn(broker, later).status == 200)
        clock.advance(by: 1)
        let revoked = await broker.post(
            "/admin/v1/users/\(uid)/revoke-sessions", [:], headers: ["Authorization": "Bearer " + Self.adminToken])
        #expect(revoked.status == 204)
        let afterRevocation = await Self.signIn(broker, later)
        #expect(afterRevocation.status == 200)
        #expect(afterRevocation.json?["localId"]?.stringValue == uid)
        let validSince = await broker.firebasePost(
            Self.v1 + "/projects/stub-project/accounts:update",
            ["localId": .string(uid), "validSince": .string(String(Int64(clock.now.timeIntervalSince1970)))],
            headers: Self.owner)
        #expect(validSince.status == 200)
        #expect(await Self.signIn(broker, later).status == 200)
    }

    @Test func aTokenMintedBeforeAPasswordResetSignsNothingIn() async throws {
        let (broker, clock) = try await Self.start()
        let signUp = await broker.firebasePost(
            Self.v1 + "/accounts:signUp?key=k", ["email": "reset@example.com", "password": "old-password"])
        let uid = try #require(signUp.json?["localId"]?.stringValue)
        let token = try Self.token(uid, clock)
        #expect(await Self.signIn(broker, token).status == 200)

        let link = await broker.firebasePost(
            Self.v1 + "/projects/stub-project/accounts:sendOobCode",
            ["requestType": "PASSWORD_RESET", "email": "reset@example.com", "returnOobLink": true], headers: Self.owner)
        let code = try #require(link.json?["oobCode"]?.stringValue)
        clock.advance(by: 2)
        let reset = await broker.firebasePost(
            Self.v1 + "/accounts:resetPassword?key=k", ["oobCode": .string(code), "newPassword": "new-password-1"])
        #expect(reset.status == 200)
        try await Self.expectRefused(broker, token, uid: uid)
        clock.advance(by: 1)
        #expect(await Self.signIn(broker, try Self.token(uid, clock)).status == 200)
    }

    @Test func aTokenMintedBeforeADeletionDoesNotMakeTheUidAgain() async throws {
        let (broker, clock) = try await Self.start()
        let token = try Self.token("deleted-uid", clock)
        let first = await Self.signIn(broker, token)
        #expect(first.json?["isNewUser"]?.boolValue == true)
        clock.advance(by: 0.5)
        let deleted = await broker.firebasePost(
            Self.v1 + "/projects/stub-project/accounts:delete", ["localId": "deleted-uid"], headers: Self.owner)
        #expect(deleted.status == 200)
        try await Self.expectRefused(broker, token, uid: "deleted-uid")
        #expect(await broker.store.account(id: AccountID("deleted-uid")) == nil)
        let lookup = await broker.firebasePost(
            Self.v1 + "/projects/stub-project/accounts:lookup", ["localId": ["deleted-uid"]], headers: Self.owner)
        #expect(lookup.status == 200)
        #expect(lookup.json?["users"] == nil)
        // Minted in a later second, a token makes the uid again (as Firebase's does).
        clock.advance(by: 1)
        let again = await Self.signIn(broker, try Self.token("deleted-uid", clock))
        #expect(again.status == 200)
        #expect(again.json?["isNewUser"]?.boolValue == true)
    }

    @Test func theOwnersDeletionThroughTheNativeAPICutsOffTooAndBatchDeleteDoes() async throws {
        let (broker, clock) = try await Self.start()
        let signUp = await broker.post("/v1/signup", ["email": "native@example.com", "password": "secret-pass"])
        let uid = try #require(signUp.json?["user"]?["uid"]?.stringValue)
        let idToken = try #require(signUp.json?["idToken"]?.stringValue)
        let token = try Self.token(uid, clock)
        let batchToken = try Self.token("batch-uid", clock)
        #expect(await Self.signIn(broker, batchToken).status == 200)
        clock.advance(by: 0.5)
        #expect(await broker.request("DELETE", "/v1/me", headers: ["Authorization": "Bearer " + idToken]).status == 204)
        try await Self.expectRefused(broker, token, uid: uid)
        #expect(await broker.store.account(id: AccountID(uid)) == nil)
        let batch = await broker.firebasePost(
            Self.v1 + "/projects/stub-project/accounts:batchDelete", ["localIds": ["batch-uid"], "force": true],
            headers: Self.owner)
        #expect(batch.status == 200)
        try await Self.expectRefused(broker, batchToken, uid: "batch-uid")
        #expect(await broker.store.account(id: AccountID("batch-uid")) == nil)
    }

    /// The Kakao `email-password` link of an imported workaround account is takeover-like: whoever knew the public
    /// Kakao id could have had a custom token made for the uid.
    @Test func aKakaoLegacyLinkCutsOffEarlierTokens() async throws {
        let (broker, clock) = try await Self.start(kakaoMapping: "email-password")
        let uid = AccountID("firebase-kakao-uid")
        let imported = Account(
            id: uid, email: "lee@example.kr", createdAt: clock.now,
            password: .chosen(try await SaltedDigestPasswordHasher().hash("Optional(4100005151)")), origin: .import)
        try await broker.store.create(imported)
        let token = try Self.token(uid.rawValue, clock)
        clock.advance(by: 0.3)
        let user = KakaoStubUser(id: 4_100_005_151, email: "lee@example.kr")
        let kakao = await broker.post("/v1/signin/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: user))])
        #expect(kakao.json?["user"]?["uid"] == "firebase-kakao-uid")
        try await Self.expectRefused(broker, token, uid: uid.rawValue)
    }
}
