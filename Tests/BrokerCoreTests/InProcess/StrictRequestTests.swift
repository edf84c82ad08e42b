import BrokerCore
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A new user's typos and hostile values (issue 10, "Also"): unknown body fields and query parameters are refused
/// by name, photo URLs are `https` only, and an admin cannot strand an account by unlinking its last identity.
@Suite struct StrictRequestTests {
    static let adminToken = "admin-token-for-in-process-tests-0123"
    static let admin = ["Authorization": "Bearer \(adminToken)"]

    /// A broker whose config refuses insecure URLs (so no providers: the stubs are plain http).
    static func secureBroker() async throws -> InProcessBroker {
        try await InProcessBroker.start(adminToken: adminToken) { document in
            guard case .object(var members) = document else { return document }
            members["allowInsecureProviderUrls"] = false
            members["providers"] = [:]
            return .object(members)
        }
    }

    static func signUp(_ broker: InProcessBroker, _ email: String = "me@example.com") async throws -> (uid: AccountID, bearer: [String: String]) {
        let response = await broker.post("/v1/signup", ["email": .string(email), "password": "secret1"])
        #expect(response.status == 201)
        let uid = try #require(response.json?["user"]?["uid"]?.stringValue)
        let token = try #require(response.json?["idToken"]?.stringValue)
        return (AccountID(uid), ["Authorization": "Bearer \(token)"])
    }

    static func message(_ response: TestResponse) -> String { response.json?["error"]?["message"]?.stringValue ?? "" }

    // MARK: - PATCH /v1/me

    @Test func aMisspeltProfileFieldIsRefusedByNameAndChangesNothing() async throws {
        let broker = try await InProcessBroker.start()
        let (uid, bearer) = try await Self.signUp(broker)
        let typo = await broker.request("PATCH", "/v1/me", json: ["displayName": "Ada", "dispalyName": "Ada"], headers: bearer)
        #expect(typo.status == 400)
        #expect(typo.errorCode == "INVALID_REQUEST")
        #expect(Self.message(typo).contains("dispalyName"))
        let unknownQuery = await broker.request("PATCH", "/v1/me?displayName=Ada", json: [:], headers: bearer)
        #expect(unknownQuery.status == 400)
        #expect(unknownQuery.errorCode == "INVALID_REQUEST")
        #expect(Self.message(unknownQuery).contains("displayName"))
        #expect(await broker.store.account(id: uid)?.displayName == nil)
        let fine = await broker.request("PATCH", "/v1/me", json: ["displayName": "Ada"], headers: bearer)
        #expect(fine.status == 200)
        #expect(await broker.store.account(id: uid)?.displayName == "Ada")
    }

    @Test func aFieldNameIsQuotedShortAndPrintableInTheMessage() async throws {
        let broker = try await InProcessBroker.start()
        let (_, bearer) = try await Self.signUp(broker)
        let long = String(repeating: "x", count: 5000) + "\u{1}"
        let response = await broker.request("PATCH", "/v1/me", json: .object([long: "v"]), headers: bearer)
        #expect(response.status == 400)
        #expect(Self.message(response).count < 200)
        #expect(!Self.message(response).contains("\u{1}"))
    }

    static let refusedPhotos = [
        "javascript:alert(1)", "JavaScript:alert(1)", "http://example.com/a.png", "data:image/png;base64,AAAA",
        "/relative.png", "example.com/a.png", "https://", "https://user:pw@example.com/a.png", "",
        " https://example.com/a.png", "https://example.com/a b.png", "ftp://example.com/a.png",
        "https://example.com/" + String(repeating: "a", count: PhotoURL.maximumLength),
    ]

    @Test(arguments: refusedPhotos)
    func aPhotoURLThatIsNotHTTPSIsRefused(_ photo: String) async throws {
        let broker = try await Self.secureBroker()
        let (uid, bearer) = try await Self.signUp(broker)
        let response = await broker.request(
            "PATCH", "/v1/me", json: ["displayName": "Ada", "photoUrl": .string(photo)], headers: bearer)
        #expect(response.status == 400)
        #expect(response.errorCode == "INVALID_REQUEST")
        #expect(Self.message(response).contains("photoUrl"))
        let stored = try #require(await broker.store.account(id: uid))
        #expect(stored.photoURL == nil)
        #expect(stored.displayName == nil)
    }

    @Test func anHTTPSPhotoURLIsKeptAndNullClearsIt() async throws {
        let broker = try await Self.secureBroker()
        let (uid, bearer) = try await Self.signUp(broker)
        for photo in ["https://example.com/a.png", "HTTPS://EXAMPLE.COM/A.PNG?size=64"] {
            let response = await broker.request("PATCH", "/v1/me", json: ["photoUrl": .string(photo)], headers: bearer)
            #expect(response.status == 200)
            #expect(await broker.store.account(id: uid)?.photoURL == photo)
        }
        let cleared = await broker.request("PATCH", "/v1/me", json: ["photoUrl": .null], headers: bearer)
        #expect(cleared.status == 200)
        #expect(await broker.store.account(id: uid)?.photoURL == nil)
    }

    @Test func plainHTTPIsKeptOnlyWhenInsecureURLsAreAllowed() async throws {
        let broker = try await InProcessBroker.start()  // the stubs' config allows insecure URLs
        let (uid, bearer) = try await Self.signUp(broker)
        let http = await broker.request("PATCH", "/v1/me", json: ["photoUrl": "http://127.0.0.1/a.png"], headers: bearer)
        #expect(http.status == 200)
        #expect(await broker.store.account(id: uid)?.photoURL == "http://127.0.0.1/a.png")
        let script = await broker.request("PATCH", "/v1/me", json: ["photoUrl": "javascript:alert(1)"], headers: bearer)
        #expect(script.status == 400)
        #expect(await broker.store.account(id: uid)?.photoURL == "http://127.0.0.1/a.png")
    }

    @Test func aProvidersBadPhotoIsDroppedNeverARefusal() async throws {
        let broker = try await InProcessBroker.start()
        let bad = try broker.stubs.idToken("google", claims: ["sub": "g-photo", "picture": "javascript:alert(1)"])
        let response = await broker.post("/v1/signin/google", ["idToken": .string(bad)])
        #expect(response.status == 201)
        #expect(response.json?["user"]?["photoUrl"] == .null)
        let uid = AccountID(try #require(response.json?["user"]?["uid"]?.stringValue))
        #expect(await broker.store.account(id: uid)?.photoURL == nil)
        let good = try broker.stubs.idToken("google", claims: ["sub": "g-photo-2", "picture": "https://example.com/p.png"])
        let kept = await broker.post("/v1/signin/google", ["idToken": .string(good)])
        #expect(kept.status == 201)
        #expect(kept.json?["user"]?["photoUrl"] == "https://example.com/p.png")
    }

    // MARK: - Admin API

    @Test(arguments: [
        "/admin/v1/users?emial=me@example.com", "/admin/v1/users?limit=5&curser=abc", "/admin/v1/users/{uid}?fields=all",
        "/admin/v1/audit?uid={uid}&limt=5", "/admin/v1/identities/google/g-1?x=1", "/admin/v1/users?emailPrefx=me",
    ])
    func anUnknownAdminQueryParameterIsRefusedByName(_ path: String) async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.adminToken)
        let (uid, _) = try await Self.signUp(broker)
        let response = await broker.get(path.replacingOccurrences(of: "{uid}", with: uid.rawValue), headers: Self.admin)
        #expect(response.status == 400)
        #expect(response.errorCode == "INVALID_REQUEST")
        let name = try #require(path.split(separator: "?").last?.split(separator: "&").last?.split(separator: "=").first)
        #expect(Self.message(response).contains(String(name)))
    }

    @Test func theAdminGetsStillTakeTheirParameters() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.adminToken)
        let (uid, _) = try await Self.signUp(broker)
        let users = await broker.get("/admin/v1/users?email=me@example.com&provider=password&limit=5", headers: Self.admin)
        #expect(users.status == 200)
        #expect(users.json?["users"]?.arrayValue?.count == 1)
        let audit = await broker.get("/admin/v1/audit?uid=\(uid.rawValue)&limit=5", headers: Self.admin)
        #expect(audit.status == 200)
    }

    @Test func adminWritesRefuseUnknownFieldsAndChangeNothing() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.adminToken)
        let (uid, bearer) = try await Self.signUp(broker)
        let patch = await broker.request(
            "PATCH", "/admin/v1/users/\(uid.rawValue)?notify=true", json: ["disabled": true], headers: Self.admin)
        #expect(patch.status == 400)
        #expect(Self.message(patch).contains("notify"))
        #expect(await broker.store.account(id: uid)?.disabled == false)
        let custom = await broker.post("/admin/v1/custom-tokens", ["uid": .string(uid.rawValue), "claim": ["a": 1]], headers: Self.admin)
        #expect(custom.status == 400)
        #expect(Self.message(custom).contains("claim"))
        let revoke = await broker.post("/admin/v1/users/\(uid.rawValue)/revoke-sessions", ["everywhere": true], headers: Self.admin)
        #expect(revoke.status == 400)
        #expect(Self.message(revoke).contains("everywhere"))
        #expect(await broker.get("/v1/me", headers: bearer).status == 200)
        let empty = await broker.post("/admin/v1/users/\(uid.rawValue)/revoke-sessions", [:], headers: Self.admin)
        #expect(empty.status == 204)
    }

    @Test func anAdminCannotUnlinkTheLastWayToSignIn() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.adminToken)
        let google = await broker.post(
            "/v1/signin/google", ["idToken": .string(try broker.stubs.idToken("google", claims: ["sub": "g-last"]))])
        let uid = try #require(google.json?["user"]?["uid"]?.stringValue)
        let refused = await broker.request("DELETE", "/admin/v1/users/\(uid)/identities/google", headers: Self.admin)
        #expect(refused.status == 400)
        #expect(refused.errorCode == "LAST_IDENTITY")
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-last")?.id.rawValue == uid)
        let events = await broker.store.auditEvents(uid: AccountID(uid), before: nil, limit: 10).map(\.action.rawValue)
        #expect(!events.contains("unlink"))
        // With another identity linked, one may go.
        let bearer = ["Authorization": "Bearer \(try #require(google.json?["idToken"]?.stringValue))"]
        let kakao = await broker.post(
            "/v1/me/identities/kakao",
            ["accessToken": .string(broker.stubs.kakaoAccessToken(for: KakaoStubUser(id: 77, email: nil)))], headers: bearer)
        #expect(kakao.status == 200)
        let unlinked = await broker.request("DELETE", "/admin/v1/users/\(uid)/identities/google", headers: Self.admin)
        #expect(unlinked.status == 200)
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-last") == nil)
        #expect(await broker.request("DELETE", "/admin/v1/users/\(uid)/identities/kakao", headers: Self.admin).errorCode == "LAST_IDENTITY")
        // Deleting the account is how an admin removes the last one.
        #expect(await broker.request("DELETE", "/admin/v1/users/\(uid)", headers: Self.admin).status == 204)
    }

    @Test func aUsablePasswordLetsAnAdminUnlinkTheLastIdentity() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.adminToken)
        let (uid, bearer) = try await Self.signUp(broker, "pw@example.com")
        let google = try broker.stubs.idToken("google", claims: ["sub": "g-pw"])
        #expect(await broker.post("/v1/me/identities/google", ["idToken": .string(google)], headers: bearer).status == 200)
        let unlinked = await broker.request("DELETE", "/admin/v1/users/\(uid.rawValue)/identities/google", headers: Self.admin)
        #expect(unlinked.status == 200)
        #expect(await broker.store.account(id: uid)?.identities == [])
    }

    @Test func aKakaoUserWithANonPositiveIDIsRefusedAndStoresNothing() async throws {
        let broker = try await InProcessBroker.start()
        for id: Int64 in [0, -5] {
            let response = await broker.post(
                "/v1/signin/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: KakaoStubUser(id: id, email: nil)))])
            #expect(response.status == 503)
            #expect(response.errorCode == "PROVIDER_UNAVAILABLE")
        }
        #expect(await broker.store.listAccounts(filter: AccountFilter(), after: nil, limit: 10).isEmpty)
    }
}

extension StrictRequestTests {
    @Test func customClaimsWithANumberPastDoublesRangeAreRefused() async throws {
        let broker = try await InProcessBroker.start(adminToken: Self.adminToken)
        let (uid, _) = try await Self.signUp(broker)
        for body in [#"{"customClaims": {"level": 1e400}}"#, #"{"customClaims": {"tiers": [1, -1e999]}}"#] {
            let response = await broker.request(
                "PATCH", "/admin/v1/users/\(uid.rawValue)", body: Array(body.utf8),
                headers: Self.admin.merging(["Content-Type": "application/json"]) { $1 })
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
        }
        #expect(await broker.store.account(id: uid)?.customClaims == nil)
        let fine = await broker.request(
            "PATCH", "/admin/v1/users/\(uid.rawValue)", json: ["customClaims": ["level": .double(2.5)]], headers: Self.admin)
        #expect(fine.status == 200)
        #expect(await broker.store.account(id: uid)?.customClaims == #"{"level":2.5}"#)
    }
}
