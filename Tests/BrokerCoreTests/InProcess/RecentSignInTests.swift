import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract sections 3 and 4: `auth_time` is the session's own sign-in time (stored with the session, kept by its
/// refreshes, never moved by a sign-in elsewhere), and sensitive changes (the password, deleting the account) need
/// a sign-in at most 5 minutes old: 401 `RECENT_SIGN_IN_REQUIRED` natively, `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` on the
/// Firebase-compatible listener. Also the native password change, `POST /v1/me/password`.
@Suite struct RecentSignInTests {
    static func start() async throws -> (InProcessBroker, ManualClock) {
        let clock = ManualClock(Date())  // now: the stubs mint provider tokens with the real time
        return (try await InProcessBroker.start(clock: clock), clock)
    }

    static func bearer(_ response: TestResponse) -> [String: String] {
        ["Authorization": "Bearer " + (response.json?["idToken"]?.stringValue ?? "")]
    }

    static func authTime(_ response: TestResponse) throws -> Int64? {
        try JWT(parsing: try #require(response.json?["idToken"]?.stringValue)).claims["auth_time"]?.intValue
    }

    static func refresh(_ broker: InProcessBroker, _ session: TestResponse) async -> TestResponse {
        await broker.post("/v1/token", ["refreshToken": .string(session.json?["refreshToken"]?.stringValue ?? "")])
    }

    @Test func authTimeIsTheSessionsOwnSignInAndRefreshesKeepIt() async throws {
        let (broker, clock) = try await Self.start()
        let signUpTime = Int64(clock.now.timeIntervalSince1970)
        let first = await broker.post("/v1/signup", ["email": "a@example.com", "password": "secret-1"])
        #expect(first.status == 201)
        #expect(try Self.authTime(first) == signUpTime)

        clock.advance(by: 200)
        // A sign-in on another device is a session of its own: it does not make the first one look recent.
        let second = await broker.post("/v1/signin/password", ["email": "a@example.com", "password": "secret-1"])
        #expect(second.status == 200)
        #expect(try Self.authTime(second) == signUpTime + 200)

        clock.advance(by: 200)
        let refreshed = await Self.refresh(broker, first)
        #expect(refreshed.status == 200)
        #expect(try Self.authTime(refreshed) == signUpTime)
        clock.advance(by: 50)
        let again = await Self.refresh(broker, refreshed)
        #expect(again.status == 200)
        #expect(try Self.authTime(again) == signUpTime)
        // The refreshed first session is not recent, however fresh its ID token.
        let delete = await broker.request("DELETE", "/v1/me", headers: Self.bearer(again))
        #expect(delete.status == 401)
        #expect(delete.errorCode == "RECENT_SIGN_IN_REQUIRED")
        #expect(await broker.store.account(email: "a@example.com") != nil)
    }

    @Test func deletingTheAccountNeedsASignInAtMostFiveMinutesOld() async throws {
        let (broker, clock) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "b@example.com", "password": "secret-1"])
        let uid = try #require(session.json?["user"]?["uid"]?.stringValue)

        clock.advance(by: SessionService.recentSignInWindow + 1)
        let refused = await broker.request("DELETE", "/v1/me", headers: Self.bearer(session))
        #expect(refused.status == 401)
        #expect(refused.errorCode == "RECENT_SIGN_IN_REQUIRED")
        #expect(await broker.store.account(id: AccountID(uid)) != nil)
        // The session itself still works for everything else.
        #expect(await broker.get("/v1/me", headers: Self.bearer(session)).status == 200)

        let fresh = await broker.post("/v1/signin/password", ["email": "b@example.com", "password": "secret-1"])
        clock.advance(by: SessionService.recentSignInWindow)
        let deleted = await broker.request("DELETE", "/v1/me", headers: Self.bearer(fresh))
        #expect(deleted.status == 204)
        #expect(await broker.store.account(id: AccountID(uid)) == nil)
    }

    @Test func aPasswordChangeAnswersANewSessionAndEndsEveryOther() async throws {
        let (broker, clock) = try await Self.start()
        let asking = await broker.post("/v1/signup", ["email": "c@example.com", "password": "old-secret"])
        let signUpTime = Int64(clock.now.timeIntervalSince1970)
        clock.advance(by: 60)
        let other = await broker.post("/v1/signin/password", ["email": "c@example.com", "password": "old-secret"])
        #expect(other.status == 200)

        clock.advance(by: 60)
        let changed = await broker.post("/v1/me/password", ["newPassword": "new-secret"], headers: Self.bearer(asking))
        #expect(changed.status == 200)
        #expect(changed.json?["user"]?["email"]?.stringValue == "c@example.com")
        #expect(changed.json?["isNewUser"]?.boolValue == false)
        // The asking session goes on through the new tokens, its sign-in time unchanged.
        #expect(try Self.authTime(changed) == signUpTime)
        #expect(await broker.get("/v1/me", headers: Self.bearer(changed)).status == 200)
        #expect(await Self.refresh(broker, changed).status == 200)
        // Its earlier tokens and every other session end.
        for ended in [asking, other] {
            let me = await broker.get("/v1/me", headers: Self.bearer(ended))
            #expect(me.status == 401)
            #expect(me.errorCode == "UNAUTHENTICATED")
            let refresh = await Self.refresh(broker, ended)
            #expect(refresh.status == 401)
            #expect(refresh.errorCode == "INVALID_REFRESH_TOKEN")
        }
        let old = await broker.post("/v1/signin/password", ["email": "c@example.com", "password": "old-secret"])
        #expect(old.errorCode == "INVALID_LOGIN_CREDENTIALS")
        #expect(await broker.post("/v1/signin/password", ["email": "c@example.com", "password": "new-secret"]).status == 200)
        let events = await broker.store.auditEvents(uid: AccountID(try #require(changed.json?["user"]?["uid"]?.stringValue)), before: nil, limit: 50)
        #expect(events.contains { $0.action == .passwordChange })
    }

    @Test func aRefusedPasswordChangeChangesNothing() async throws {
        let (broker, clock) = try await Self.start()
        let session = await broker.post("/v1/signup", ["email": "d@example.com", "password": "old-secret"])
        let weak = await broker.post("/v1/me/password", ["newPassword": "12345"], headers: Self.bearer(session))
        #expect(weak.status == 400)
        #expect(weak.errorCode == "WEAK_PASSWORD")
        let unknown = await broker.post(
            "/v1/me/password", ["newPassword": "new-secret", "password": "x"], headers: Self.bearer(session))
        #expect(unknown.status == 400)
        #expect(unknown.errorCode == "INVALID_REQUEST")
        let missing = await broker.post("/v1/me/password", [:], headers: Self.bearer(session))
        #expect(missing.errorCode == "INVALID_REQUEST")
        let anonymous = await broker.post("/v1/me/password", ["newPassword": "new-secret"])
        #expect(anonymous.status == 401)
        #expect(anonymous.errorCode == "UNAUTHENTICATED")

        clock.advance(by: SessionService.recentSignInWindow + 1)
        let stale = await broker.post("/v1/me/password", ["newPassword": "new-secret"], headers: Self.bearer(session))
        #expect(stale.status == 401)
        #expect(stale.errorCode == "RECENT_SIGN_IN_REQUIRED")

        // Nothing changed: the old password signs in, the session lives, no change was audited.
        #expect(await broker.get("/v1/me", headers: Self.bearer(session)).status == 200)
        #expect(await broker.post("/v1/signin/password", ["email": "d@example.com", "password": "old-secret"]).status == 200)
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        #expect(await broker.store.auditEvents(uid: uid, before: nil, limit: 50).contains { $0.action == .passwordChange } == false)
    }

    @Test func aProviderAccountSetsAFirstPassword() async throws {
        let (broker, _) = try await Self.start()
        let google = await broker.post(
            "/v1/signin/google",
            ["idToken": .string(try broker.stubs.idToken(
                "google", claims: ["sub": "g-first", "email": "e@example.com", "email_verified": true]))])
        #expect(google.status == 201)
        let set = await broker.post("/v1/me/password", ["newPassword": "first-secret"], headers: Self.bearer(google))
        #expect(set.status == 200)
        #expect(set.json?["user"]?["identities"]?.arrayValue?.count == 1)
        let claims = try JWT(parsing: try #require(set.json?["idToken"]?.stringValue)).claims
        #expect(claims["sign_in_provider"]?.stringValue == "google")
        #expect(await broker.post("/v1/signin/password", ["email": "e@example.com", "password": "first-secret"]).status == 200)
    }

    // MARK: The Firebase-compatible listener

    static let v1 = FirebaseEndpoints.identityToolkitPath
    /// A client call's API key (any value, as the emulator takes).
    static let key = "?key=AIzaSyTestKey"

    @Test func theListenerAnswersCredentialTooOldForAPasswordChangeOrADeletion() async throws {
        let (broker, clock) = try await Self.start()
        let signUp = await broker.firebasePost(
            Self.v1 + "/accounts:signUp" + Self.key, ["email": "f@example.com", "password": "old-secret", "returnSecureToken": true])
        #expect(signUp.status == 200)
        let idToken = try #require(signUp.json?["idToken"]?.stringValue)
        let uid = AccountID(try #require(signUp.json?["localId"]?.stringValue))

        clock.advance(by: SessionService.recentSignInWindow + 1)
        let update = await broker.firebasePost(
            Self.v1 + "/accounts:update" + Self.key, ["idToken": .string(idToken), "password": "new-secret", "returnSecureToken": true])
        #expect(update.status == 400)
        #expect(update.json?["error"]?["message"]?.stringValue == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        let delete = await broker.firebasePost(Self.v1 + "/accounts:delete" + Self.key, ["idToken": .string(idToken)])
        #expect(delete.status == 400)
        #expect(delete.json?["error"]?["message"]?.stringValue == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        // Nothing changed: the account is there with its old password, the session lives.
        #expect(await broker.store.account(id: uid) != nil)
        let lookup = await broker.firebasePost(Self.v1 + "/accounts:lookup" + Self.key, ["idToken": .string(idToken)])
        #expect(lookup.status == 200)
        // A profile change is not sensitive.
        let rename = await broker.firebasePost(
            Self.v1 + "/accounts:update" + Self.key, ["idToken": .string(idToken), "displayName": "Still me"])
        #expect(rename.status == 200)
        let oldPassword = await broker.firebasePost(
            Self.v1 + "/accounts:signInWithPassword" + Self.key,
            ["email": "f@example.com", "password": "new-secret", "returnSecureToken": true])
        #expect(oldPassword.status == 400)

        let again = await broker.firebasePost(
            Self.v1 + "/accounts:signInWithPassword" + Self.key,
            ["email": "f@example.com", "password": "old-secret", "returnSecureToken": true])
        let fresh = try #require(again.json?["idToken"]?.stringValue)
        let changed = await broker.firebasePost(
            Self.v1 + "/accounts:update" + Self.key, ["idToken": .string(fresh), "password": "new-secret", "returnSecureToken": true])
        #expect(changed.status == 200)
        let newToken = try #require(changed.json?["idToken"]?.stringValue)
        let deleted = await broker.firebasePost(Self.v1 + "/accounts:delete" + Self.key, ["idToken": .string(newToken)])
        #expect(deleted.status == 200)
        #expect(await broker.store.account(id: uid) == nil)
    }
}
