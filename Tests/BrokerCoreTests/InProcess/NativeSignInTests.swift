import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The native sign-in surface over the in-process app: how bodies become credentials, and the flow's answers,
/// without sockets, libcurl, SQLite or Argon2.
@Suite struct NativeSignInTests {
    static func accounts(_ broker: InProcessBroker) async throws -> Int {
        await broker.store.listAccounts(filter: AccountFilter(), after: nil, limit: 1000).count
    }

    @Test(arguments: [
        ["accessToken": "a", "idToken": "b"], [:], ["accessToken": 5], ["accessToken": ""], ["idToken": "x", "rawNonce": 3],
        ["idToken": ""], ["idToken": .null],
    ] as [JSONValue])
    func badKakaoBodiesAreInvalidRequestsThatCallNobody(_ body: JSONValue) async throws {
        let broker = try await InProcessBroker.start()
        let response = await broker.post("/v1/signin/kakao", body)
        #expect(response.status == 400)
        #expect(response.errorCode == "INVALID_REQUEST")
        #expect(broker.stubs.kakaoCallCount == 0)
        #expect(try await Self.accounts(broker) == 0)
    }

    @Test func aBodyThatIsNotAnObjectIsAnInvalidRequest() async throws {
        let broker = try await InProcessBroker.start()
        let response = await broker.request("POST", "/v1/signin/google", body: Array("[1]".utf8))
        #expect(response.status == 400)
        #expect(response.errorCode == "INVALID_REQUEST")
    }

    @Test func aProviderTakesOnlyTheCredentialsItKnows() async throws {
        let broker = try await InProcessBroker.start()
        let google = await broker.post("/v1/signin/google", ["accessToken": "a-google-access-token"])
        #expect(google.status == 400)
        #expect(google.errorCode == "INVALID_REQUEST")
        // Apple's token travels as `identityToken`, as Apple's SDK names it; `idToken` is not its field.
        let apple = await broker.post(
            "/v1/signin/apple",
            ["idToken": .string(try broker.stubs.idToken("apple", claims: [:])), "rawNonce": "n"])
        #expect(apple.status == 400)
        #expect(apple.errorCode == "INVALID_REQUEST")
        #expect(try await Self.accounts(broker) == 0)
    }

    @Test func anUnknownProviderIsNotEnabledAndCountsNothing() async throws {
        let broker = try await InProcessBroker.start()
        let response = await broker.post("/v1/signin/myspace", ["idToken": "x"])
        #expect(response.status == 404)
        #expect(response.errorCode == "PROVIDER_NOT_ENABLED")
        #expect(!broker.services.metrics.exposition().contains("myspace"))
        #expect(try await Self.accounts(broker) == 0)
    }

    @Test func aGoogleUserIsCreatedOnceAndFoundAgain() async throws {
        let broker = try await InProcessBroker.start()
        let claims: [String: JSONValue] = ["sub": "g-1", "email": "g1@example.com", "email_verified": true]
        let first = await broker.post("/v1/signin/google", ["idToken": .string(try broker.stubs.idToken("google", claims: claims))])
        #expect(first.status == 201)
        #expect(first.json?["isNewUser"] == true)
        let second = await broker.post("/v1/signin/google", ["idToken": .string(try broker.stubs.idToken("google", claims: claims))])
        #expect(second.status == 200)
        #expect(second.json?["isNewUser"] == false)
        #expect(second.json?["user"]?["uid"] == first.json?["user"]?["uid"])
        #expect(try await Self.accounts(broker) == 1)
        let events = await broker.store.auditEvents(uid: nil, before: nil, limit: 10).map(\.outcome)
        #expect(events == ["success", "created"])
    }

    @Test func appleNamesTheUserFromTheFullNameHintOnFirstSignIn() async throws {
        let broker = try await InProcessBroker.start()
        let nonce = "raw-nonce-1"
        let token = try broker.stubs.idToken("apple", claims: ["sub": "a-1", "nonce": .string(Hex.encode(Digest.sha256(nonce)))])
        let response = await broker.post(
            "/v1/signin/apple",
            ["identityToken": .string(token), "rawNonce": .string(nonce), "fullName": ["givenName": " Ada ", "familyName": "Lovelace"]])
        #expect(response.status == 201)
        #expect(response.json?["user"]?["displayName"] == "Ada Lovelace")
        // The same identity token again is a replay, refused before anything is stored.
        let replay = await broker.post("/v1/signin/apple", ["identityToken": .string(token), "rawNonce": .string(nonce)])
        #expect(replay.status == 401)
        #expect(replay.errorCode == "TOKEN_REPLAYED")
        let badName = await broker.post(
            "/v1/signin/apple", ["identityToken": .string(token), "rawNonce": .string(nonce), "fullName": "Ada"])
        #expect(badName.status == 400)
        #expect(badName.errorCode == "INVALID_REQUEST")
        #expect(try await Self.accounts(broker) == 1)
    }

    @Test func kakaoContributesItsOwnErrorCodes() async throws {
        let broker = try await InProcessBroker.start(kakaoMapping: "email-password")
        let noEmail = KakaoStubUser(id: 501, email: nil)
        let response = await broker.post("/v1/signin/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: noEmail))])
        #expect(response.status == 400)
        #expect(response.errorCode == "KAKAO_EMAIL_REQUIRED")
        let otherApp = KakaoStubUser(id: 502, email: "k@example.kr", appID: 999)
        let mismatch = await broker.post("/v1/signin/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: otherApp))])
        #expect(mismatch.status == 401)
        #expect(mismatch.errorCode == "KAKAO_APP_MISMATCH")
        #expect(try await Self.accounts(broker) == 0)
        let refusals = await broker.store.auditEvents(uid: nil, before: nil, limit: 10).map(\.outcome)
        #expect(refusals == ["KAKAO_APP_MISMATCH", "KAKAO_EMAIL_REQUIRED"])
    }
}
