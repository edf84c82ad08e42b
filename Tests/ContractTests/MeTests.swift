import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

@Suite struct MeTests {
    static func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

    static func signUp(_ broker: BrokerHarness, _ email: String = "me@example.com") async throws -> (uid: String, id: String, refresh: String) {
        let response = try await broker.post("/v1/signup", ["email": .string(email), "password": "secret1"])
        return (
            try #require(response.json?["user"]?["uid"]?.stringValue), try #require(response.json?["idToken"]?.stringValue),
            try #require(response.json?["refreshToken"]?.stringValue)
        )
    }

    @Test func theSignedInUserReadsAndEditsTheProfile() async throws {
        try await withBroker { broker in
            let (uid, idToken, _) = try await Self.signUp(broker)
            let me = try await broker.get("/v1/me", headers: Self.bearer(idToken))
            #expect(me.status == 200)
            #expect(me.json?["uid"]?.stringValue == uid)
            let patched = try await broker.request(
                "PATCH", "/v1/me", json: ["displayName": "Ada", "photoUrl": "https://example.com/a.png"],
                headers: Self.bearer(idToken))
            #expect(patched.status == 200)
            #expect(patched.json?["displayName"] == "Ada")
            #expect(try await broker.store.account(id: AccountID(uid))?.photoURL == "https://example.com/a.png")
            let cleared = try await broker.request("PATCH", "/v1/me", json: ["photoUrl": .null], headers: Self.bearer(idToken))
            #expect(cleared.json?["photoUrl"] == .null)
            #expect(cleared.json?["displayName"] == "Ada")
            let bad = try await broker.request("PATCH", "/v1/me", json: ["displayName": 7], headers: Self.bearer(idToken))
            #expect(bad.status == 400)
            #expect(bad.errorCode == "INVALID_REQUEST")
            #expect(try await broker.store.account(id: AccountID(uid))?.displayName == "Ada")
        }
    }

    @Test func onlyABrokerIDTokenAuthenticates() async throws {
        try await withBroker(serviceAccount: true) { broker in
            let response = try await broker.post("/v1/signup", ["email": "me@example.com", "password": "secret1"])
            let refresh = try #require(response.json?["refreshToken"]?.stringValue)
            let custom = try #require(response.json?["customToken"]?.stringValue)
            let google = try broker.stubs.idToken("google", claims: ["sub": "g-1"])
            for headers in [[:], ["Authorization": "Bearer"], Self.bearer("garbage"), Self.bearer(refresh),
                            Self.bearer(custom), Self.bearer(google), ["Authorization": "Basic abc"]] {
                let me = try await broker.get("/v1/me", headers: headers)
                #expect(me.status == 401)
                #expect(me.errorCode == "UNAUTHENTICATED")
            }
        }
    }

    /// A signed-in request reads its session and its account in one look-up (issue 35); the refusals keep their
    /// order: a disabled account is 403 while its session lasts, an ended session 401 whatever the account.
    @Test func aDisabledAccountIsRefusedWhileItsSessionLastsAndAnEndedSessionFirst() async throws {
        try await withBroker { broker in
            let (uid, idToken, _) = try await Self.signUp(broker)
            _ = try await broker.store.update(id: AccountID(uid)) { $0.disabled = true }
            let disabled = try await broker.get("/v1/me", headers: Self.bearer(idToken))
            #expect(disabled.status == 403)
            #expect(disabled.errorCode == "USER_DISABLED")
            try await broker.store.revokeSessions(accountID: AccountID(uid), at: Date())
            let ended = try await broker.get("/v1/me", headers: Self.bearer(idToken))
            #expect(ended.status == 401)
            #expect(ended.errorCode == "UNAUTHENTICATED")
            // Refused reads changed nothing: the account is as the disable left it.
            let stored = try await broker.store.account(id: AccountID(uid))
            #expect(stored?.disabled == true && stored?.displayName == nil)
        }
    }

    @Test func deletingTheAccountRemovesItsSessions() async throws {
        try await withBroker { broker in
            let (uid, idToken, refresh) = try await Self.signUp(broker)
            let deleted = try await broker.request("DELETE", "/v1/me", headers: Self.bearer(idToken))
            #expect(deleted.status == 204)
            #expect(try await broker.store.account(id: AccountID(uid)) == nil)
            #expect(try await broker.get("/v1/me", headers: Self.bearer(idToken)).status == 401)
            #expect(try await broker.post("/v1/token", ["refreshToken": .string(refresh)]).errorCode == "INVALID_REFRESH_TOKEN")
            #expect(try await broker.count("refresh_tokens") == 0)
        }
    }

    @Test func linkingAndUnlinkingProviders() async throws {
        try await withBroker { broker in
            let (uid, idToken, _) = try await Self.signUp(broker)
            let google = try broker.stubs.idToken("google", claims: ["sub": "g-link", "email": "me@example.com", "email_verified": true])
            let linked = try await broker.post("/v1/me/identities/google", ["idToken": .string(google)], headers: Self.bearer(idToken))
            #expect(linked.status == 200)
            #expect(linked.json?["identities"]?.arrayValue?.map { $0["provider"] } == ["google"])
            #expect(try await broker.store.account(provider: ProviderID("google"), subject: "g-link")?.id.rawValue == uid)
            // Signing in with Google now reaches the same account.
            #expect(try await broker.googleSignIn(["sub": "g-link"]).json?["user"]?["uid"]?.stringValue == uid)

            let unlinked = try await broker.request("DELETE", "/v1/me/identities/google", headers: Self.bearer(idToken))
            #expect(unlinked.status == 200)
            #expect(unlinked.json?["identities"] == [])
            #expect(try await broker.isLinked("google", "g-link") == false)
            let missing = try await broker.request("DELETE", "/v1/me/identities/apple", headers: Self.bearer(idToken))
            #expect(missing.status == 404)
            #expect(missing.errorCode == "NOT_FOUND")
        }
    }

    @Test func anIdentityOfAnotherAccountCannotBeLinked() async throws {
        try await withBroker { broker in
            let other = try await broker.googleSignIn(["sub": "g-taken"])
            let otherUID = try #require(other.json?["user"]?["uid"]?.stringValue)
            let (uid, idToken, _) = try await Self.signUp(broker)
            let google = try broker.stubs.idToken("google", claims: ["sub": "g-taken"])
            let response = try await broker.post("/v1/me/identities/google", ["idToken": .string(google)], headers: Self.bearer(idToken))
            #expect(response.status == 409)
            #expect(response.errorCode == "IDENTITY_ALREADY_LINKED")
            #expect(try await broker.store.account(id: AccountID(uid))?.identities == [])
            #expect(try await broker.store.account(provider: ProviderID("google"), subject: "g-taken")?.id.rawValue == otherUID)
            let refused = try await broker.post(
                "/v1/me/identities/google", ["idToken": "not-a-token"], headers: Self.bearer(idToken))
            #expect(refused.errorCode == "INVALID_TOKEN")
        }
    }

    @Test func theLastWayToSignInCannotBeUnlinked() async throws {
        try await withBroker { broker in
            let kakao = try await broker.kakaoSignIn(KakaoStubUser(id: 31))
            let idToken = try #require(kakao.json?["idToken"]?.stringValue)
            let response = try await broker.request("DELETE", "/v1/me/identities/kakao", headers: Self.bearer(idToken))
            #expect(response.status == 400)
            #expect(response.errorCode == "LAST_IDENTITY")
            #expect(try await broker.isLinked("kakao", "31"))
        }
    }
}
