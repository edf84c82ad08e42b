import BrokerCore
import BrokerCrypto
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 2, "Revocation is exact": once a takeover, a deletion, an admin revocation or a sign-out has
/// answered, no ID token of the sessions it ended works again, even one minted in the same second. The clock
/// stands still in these tests, so a whole-second rule could not tell the tokens apart.
@Suite struct ExactRevocationTests {
    static let adminToken = "an-admin-token-of-32-characters!"

    static func start() async throws -> (InProcessBroker, ManualClock) {
        let clock = ManualClock(Date())  // now: the stubs mint provider tokens with the real time
        return (try await InProcessBroker.start(clock: clock, adminToken: adminToken), clock)
    }

    static func bearer(_ response: TestResponse) -> [String: String] {
        ["Authorization": "Bearer " + (response.json?["idToken"]?.stringValue ?? "")]
    }

    static let admin = ["Authorization": "Bearer " + adminToken]

    @Test func aTakeoverEndsTheSquattersSessionsInTheSameSecond() async throws {
        let (broker, _) = try await Self.start()
        let squatter = await broker.post(
            "/v1/signup", ["email": "victim@example.com", "password": "squatter-pass", "displayName": "Support: call"])
        #expect(squatter.status == 201)
        let uid = try #require(squatter.json?["user"]?["uid"]?.stringValue)
        #expect(await broker.get("/v1/me", headers: Self.bearer(squatter)).status == 200)

        let owner = await broker.post(
            "/v1/signin/google",
            ["idToken": .string(try broker.stubs.idToken(
                "google", claims: ["sub": "g-owner", "email": "victim@example.com", "email_verified": true]))])
        #expect(owner.status == 200)
        #expect(owner.json?["user"]?["uid"]?.stringValue == uid)

        // Every authenticated call of the squatter's token is refused, and changes nothing.
        let me = await broker.get("/v1/me", headers: Self.bearer(squatter))
        #expect(me.status == 401)
        #expect(me.errorCode == "UNAUTHENTICATED")
        let kakao = KakaoStubUser(id: 777, email: "squatter@example.com")
        let link = await broker.post(
            "/v1/me/identities/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: kakao))],
            headers: Self.bearer(squatter))
        #expect(link.status == 401)
        #expect(link.errorCode == "UNAUTHENTICATED")
        let patch = await broker.request("PATCH", "/v1/me", json: ["displayName": "Mine now"], headers: Self.bearer(squatter))
        #expect(patch.status == 401)
        let delete = await broker.request("DELETE", "/v1/me", headers: Self.bearer(squatter))
        #expect(delete.status == 401)

        let account = try #require(await broker.store.account(id: AccountID(uid)))
        #expect(account.identities.map(\.provider) == [ProviderID("google")])
        #expect(account.displayName == nil)
        #expect(await broker.store.account(provider: ProviderID("kakao"), subject: "777") == nil)
        // The owner's own token, minted in the same second, works.
        #expect(await broker.get("/v1/me", headers: Self.bearer(owner)).status == 200)
    }

    @Test func signOutEndsThatSessionAlone() async throws {
        let (broker, _) = try await Self.start()
        let first = await broker.post("/v1/signup", ["email": "a@example.com", "password": "secret-1"])
        let second = await broker.post("/v1/signin/password", ["email": "a@example.com", "password": "secret-1"])
        #expect(second.status == 200)
        let out = await broker.post("/v1/signout", ["refreshToken": .string(first.json?["refreshToken"]?.stringValue ?? "")])
        #expect(out.status == 204)
        let me = await broker.get("/v1/me", headers: Self.bearer(first))
        #expect(me.status == 401)
        #expect(me.errorCode == "UNAUTHENTICATED")
        #expect(await broker.get("/v1/me", headers: Self.bearer(second)).status == 200)
    }

    @Test func anAdminRevocationEndsEverySessionOfTheAccount() async throws {
        let (broker, _) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "b@example.com", "password": "secret-1"])
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)
        let revoke = await broker.post("/admin/v1/users/\(uid)/revoke-sessions", [:], headers: Self.admin)
        #expect(revoke.status == 204)
        #expect(await broker.get("/v1/me", headers: Self.bearer(session)).status == 401)
        let refresh = await broker.post("/v1/token", ["refreshToken": .string(session.json?["refreshToken"]?.stringValue ?? "")])
        #expect(refresh.status == 401)
        #expect(refresh.errorCode == "INVALID_REFRESH_TOKEN")
    }

    @Test func aDeletionEndsTheSessions() async throws {
        let (broker, _) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "c@example.com", "password": "secret-1"])
        #expect(await broker.request("DELETE", "/v1/me", headers: Self.bearer(session)).status == 204)
        let me = await broker.get("/v1/me", headers: Self.bearer(session))
        #expect(me.status == 401)
        #expect(me.errorCode == "UNAUTHENTICATED")
    }

    @Test func aDisableIsNotARevocation() async throws {
        let (broker, _) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "d@example.com", "password": "secret-1"])
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)
        let refreshToken = JSONValue.string(session.json?["refreshToken"]?.stringValue ?? "")
        #expect(await broker.request("PATCH", "/admin/v1/users/\(uid)", json: ["disabled": true], headers: Self.admin).status == 200)
        let me = await broker.get("/v1/me", headers: Self.bearer(session))
        #expect(me.status == 403)
        #expect(me.errorCode == "USER_DISABLED")
        let refresh = await broker.post("/v1/token", ["refreshToken": refreshToken])
        #expect(refresh.status == 403)
        #expect(refresh.errorCode == "USER_DISABLED")
        #expect(await broker.request("PATCH", "/admin/v1/users/\(uid)", json: ["disabled": false], headers: Self.admin).status == 200)
        #expect(await broker.get("/v1/me", headers: Self.bearer(session)).status == 200)
        #expect(await broker.post("/v1/token", ["refreshToken": refreshToken]).status == 200)
    }

    @Test func anIDTokenNamesItsSessionAndATokenWithoutOneIsRefused() async throws {
        let (broker, clock) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "e@example.com", "password": "secret-1"])
        let token = try #require(session.json?["idToken"]?.stringValue)
        let jwt = try JWT(parsing: token)
        let sid = try #require(jwt.claims["sid"]?.stringValue)
        #expect(!sid.isEmpty)
        // The same account's token minted by the broker's own key without a session is not accepted.
        let account = try #require(await broker.store.account(email: "e@example.com"))
        var claims = jwt.claims
        claims["sid"] = nil
        let key = try await broker.services.keys.current()
        let unsessioned = try JWT.encode(header: jwt.header, claims: claims, sign: key.sign)
        let me = await broker.get("/v1/me", headers: ["Authorization": "Bearer " + unsessioned])
        #expect(me.status == 401)
        #expect(me.errorCode == "UNAUTHENTICATED")
        #expect(account.id.rawValue == jwt.claims["sub"]?.stringValue)
        clock.advance(by: 1)
        #expect(await broker.get("/v1/me", headers: Self.bearer(session)).status == 200)
    }
}
