import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 4 as hostile users of a stale (or stolen, refreshable) session try it: linking and unlinking
/// need a recent sign-in on both listeners (guests excepted), and every renewal a link, an upgrade or a change
/// answers with keeps the asking session's `auth_time`, so no chain of calls turns a stale session into a recent
/// one. Each refusal with the state after: nothing linked, nothing unlinked, nothing changed.
@Suite struct RecentChangeTests {
    static let stale = SessionService.recentSignInWindow + 60

    static func bearer(_ response: TestResponse) -> [String: String] {
        ["Authorization": "Bearer " + (response.json?["idToken"]?.stringValue ?? "")]
    }

    static func authTime(_ idToken: String?) throws -> Int64? {
        try JWT(parsing: try #require(idToken)).claims["auth_time"]?.intValue
    }

    static func google(_ broker: InProcessBroker, _ subject: String, email: String? = nil) throws -> String {
        var claims: [String: JSONValue] = ["sub": .string(subject)]
        if let email { claims["email"] = .string(email) }
        return try broker.stubs.idToken("google", claims: claims)
    }

    static func identities(_ broker: InProcessBroker, _ uid: AccountID) async -> [String] {
        (await broker.store.account(id: uid)?.identities.map(\.provider.rawValue) ?? []).sorted()
    }

    static func linkOutcomes(_ broker: InProcessBroker, _ uid: AccountID) async -> [String] {
        await broker.store.auditEvents(uid: uid, before: nil, limit: 50).filter { $0.action == .link }.map(\.outcome)
    }

    // MARK: - The native API

    /// The issue's second chain: a stale session adds the attacker's way in and removes the owner's. Both refused
    /// with 401 `RECENT_SIGN_IN_REQUIRED` before the provider is asked; a fresh sign-in does both.
    @Test func aStaleSessionNeitherLinksNorUnlinks() async throws {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(clock: clock)
        let owner = await broker.post("/v1/signin/google", ["idToken": .string(try Self.google(broker, "g-owner"))])
        #expect(owner.status == 201)
        let uid = AccountID(try #require(owner.json?["user"]?["uid"]?.stringValue))
        let attacker = KakaoStubUser(id: 4_100_047_002, email: "mallory@example.kr")

        clock.advance(by: Self.stale)
        let stale = await broker.post(
            "/v1/token", ["refreshToken": .string(owner.json?["refreshToken"]?.stringValue ?? "")])
        #expect(stale.status == 200)  // a fresh ID token, but no fresh sign-in
        let linked = await broker.post(
            "/v1/me/identities/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: attacker))],
            headers: Self.bearer(stale))
        #expect(linked.status == 401)
        #expect(linked.errorCode == "RECENT_SIGN_IN_REQUIRED")
        #expect(await Self.identities(broker, uid) == ["google"])
        #expect(await broker.store.account(provider: ProviderID("kakao"), subject: String(attacker.id)) == nil)
        #expect(await Self.linkOutcomes(broker, uid) == ["RECENT_SIGN_IN_REQUIRED"])

        // The owner's Google identity cannot be taken away either (with a password it would not be the last).
        let password = await broker.post(
            "/v1/me/password", ["newPassword": "owner-secret"], headers: Self.bearer(stale))
        #expect(password.errorCode == "RECENT_SIGN_IN_REQUIRED")
        let unlinked = await broker.request("DELETE", "/v1/me/identities/google", headers: Self.bearer(stale))
        #expect(unlinked.status == 401)
        #expect(unlinked.errorCode == "RECENT_SIGN_IN_REQUIRED")
        #expect(await Self.identities(broker, uid) == ["google"])
        #expect(
            await !broker.store.auditEvents(uid: uid, before: nil, limit: 50).contains { $0.action == .unlink })

        // A sign-in makes the session recent: the owner links and unlinks.
        let fresh = await broker.post("/v1/signin/google", ["idToken": .string(try Self.google(broker, "g-owner"))])
        let ownKakao = KakaoStubUser(id: 4_100_047_003, email: "owner@example.kr")
        let ownLink = await broker.post(
            "/v1/me/identities/kakao", ["accessToken": .string(broker.stubs.kakaoAccessToken(for: ownKakao))],
            headers: Self.bearer(fresh))
        #expect(ownLink.status == 200)
        #expect(await Self.identities(broker, uid) == ["google", "kakao"])
        let ownUnlink = await broker.request("DELETE", "/v1/me/identities/kakao", headers: Self.bearer(fresh))
        #expect(ownUnlink.status == 200)
        #expect(await Self.identities(broker, uid) == ["google"])
    }

    /// A guest cannot sign in again, so its session always counts as recent: a half-hour-old guest still upgrades, and
    /// the upgraded session keeps the guest session's `auth_time` (an upgrade is no sign-in).
    @Test func aGuestUpgradesWhateverItsAgeAndKeepsItsAuthTime() async throws {
        let clock = ManualClock(Date())
        let broker = try await GuestTests.start(clock: clock)
        let guest = await broker.post("/v1/signin/anonymous", [:])
        #expect(guest.status == 201)
        let signedUpAt = try Self.authTime(guest.json?["idToken"]?.stringValue)
        clock.advance(by: 1800)  // stale, and its ID token still unexpired (an hour)
        let upgraded = await broker.post(
            "/v1/me/identities/google", ["idToken": .string(try Self.google(broker, "g-guest"))],
            headers: Self.bearer(guest))
        #expect(upgraded.status == 200)
        #expect(try Self.authTime(upgraded.json?["idToken"]?.stringValue) == signedUpAt)
        // Not recent for what comes next: the account is no guest now, and its session half an hour old.
        let delete = await broker.request("DELETE", "/v1/me", headers: Self.bearer(upgraded))
        #expect(delete.errorCode == "RECENT_SIGN_IN_REQUIRED")
        #expect(await broker.store.account(id: GuestTests.uid(guest)) != nil)

        let other = await broker.post("/v1/signin/anonymous", [:])
        let otherTime = try Self.authTime(other.json?["idToken"]?.stringValue)
        clock.advance(by: 1800)
        let signUp = await broker.post(
            "/v1/signup", ["email": "guest@example.com", "password": "secret-1"], headers: Self.bearer(other))
        #expect(signUp.status == 200)
        #expect(try Self.authTime(signUp.json?["idToken"]?.stringValue) == otherTime)
    }

    // MARK: - The Firebase-compatible listener

    /// A listener user signed up with email and password: its ID token, refresh token and uid.
    static func listenerUser(
        _ broker: InProcessBroker, _ email: String
    ) async throws -> (idToken: String, refreshToken: String, uid: AccountID) {
        let signUp = await FirebaseClientAPITests.iOS(
            broker, "signupNewUser", ["email": .string(email), "password": "secret-pass", "returnSecureToken": true])
        #expect(signUp.status == 200)
        return (
            try #require(signUp.json?["idToken"]?.stringValue), try #require(signUp.json?["refreshToken"]?.stringValue),
            AccountID(try #require(signUp.json?["localId"]?.stringValue))
        )
    }

    /// The issue's first chain on the listener: a session four minutes old links a Google account and gets tokens
    /// whose `auth_time` is still its own, so two minutes later withdrawing the TOTP factor and changing the
    /// password are `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` and nothing changes. A six-minute-old session cannot link.
    @Test func aListenerLinkKeepsTheSessionsAuthTimeAndNeedsARecentSignIn() async throws {
        let (broker, clock) = try await SecondFactorTests.start()
        let victim = try await SecondFactorTests.enrolled(broker, clock, "victim@example.com")
        // The victim's listener session: password, then the TOTP code.
        let held = await FirebaseClientAPITests.iOS(
            broker, "verifyPassword",
            ["email": "victim@example.com", "password": "secret-1", "returnSecureToken": true])
        let signedIn = await FirebaseSecondFactorTests.v2(
            broker, "mfaSignIn:finalize",
            [
                "mfaPendingCredential": .string(try #require(held.json?["mfaPendingCredential"]?.stringValue)),
                "mfaEnrollmentId": .string(victim.factorID),
                "totpVerificationInfo": ["verificationCode": .string(try SecondFactorTests.code(victim.secret, clock))],
            ])
        #expect(signedIn.status == 200)
        let session = try #require(signedIn.json?["idToken"]?.stringValue)
        let signInTime = try #require(try Self.authTime(session))

        clock.advance(by: 240)
        let linked = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(try Self.google(broker, "g-attacker"))",
            idToken: session)
        #expect(linked.status == 200)
        #expect(await Self.identities(broker, victim.uid) == ["google"])
        let renewed = try #require(linked.json?["idToken"]?.stringValue)
        #expect(try Self.authTime(renewed) == signInTime)

        clock.advance(by: 120)
        let withdraw = await FirebaseSecondFactorTests.v2(
            broker, "mfaEnrollment:withdraw",
            ["idToken": .string(renewed), "mfaEnrollmentId": .string(victim.factorID)])
        #expect(withdraw.status == 400)
        #expect(FirebaseClientAPITests.code(withdraw) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await broker.store.secondFactors(uid: victim.uid).count == 1)
        let password = await FirebaseClientAPITests.iOS(
            broker, "setAccountInfo",
            ["idToken": .string(renewed), "password": "attacker-pw", "returnSecureToken": true])
        #expect(FirebaseClientAPITests.code(password) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await SecondFactorTests.signIn(broker, "victim@example.com").errorCode == "MFA_REQUIRED")

        // Now six minutes old: a link is refused before the provider is asked, and nothing is linked.
        let again = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(try Self.google(broker, "g-attacker-2"))",
            idToken: renewed)
        #expect(again.status == 400)
        #expect(FirebaseClientAPITests.code(again) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-attacker-2") == nil)
        // Audited under the contract's code, whichever listener carried the request.
        #expect(await Self.linkOutcomes(broker, victim.uid) == ["RECENT_SIGN_IN_REQUIRED", "success"])
    }

    /// The listener's email-link link (`emailLinkSignin` with an `idToken`) keeps `auth_time` and needs a recent
    /// sign-in; a refusal leaves the code unused.
    @Test func aListenerEmailLinkLinkKeepsAuthTimeAndNeedsARecentSignIn() async throws {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(clock: clock)
        let token = try Self.google(broker, "g-email-link", email: "kim@example.com")
        let user = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(token)")
        let idToken = try #require(user.json?["idToken"]?.stringValue)
        let uid = AccountID(try #require(user.json?["localId"]?.stringValue))
        let signInTime = try Self.authTime(idToken)

        clock.advance(by: Self.stale)
        let link = try await broker.services.actionCodes.issueLink(
            .signIn, email: "kim@example.com", continueURL: nil, requestID: "t")
        let refused = await FirebaseClientAPITests.iOS(
            broker, "emailLinkSignin",
            ["email": "kim@example.com", "oobCode": .string(link.oobCode), "idToken": .string(idToken)])
        #expect(refused.status == 400)
        #expect(FirebaseClientAPITests.code(refused) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        #expect(await broker.store.account(id: uid)?.emailVerified == false)

        // Signed in again a minute ago: the link is made, and the answered session keeps that sign-in's time.
        let again = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(token)")
        let fresh = try #require(again.json?["idToken"]?.stringValue)
        let freshTime = try Self.authTime(fresh)
        clock.advance(by: 60)
        let linked = await FirebaseClientAPITests.iOS(
            broker, "emailLinkSignin",
            ["email": "kim@example.com", "oobCode": .string(link.oobCode), "idToken": .string(fresh)])
        #expect(linked.status == 200)
        #expect(await broker.store.account(id: uid)?.emailVerified == true)
        #expect(try Self.authTime(linked.json?["idToken"]?.stringValue) == freshTime)
        #expect(freshTime != signInTime)
    }

    /// `setAccountInfo` with `deleteProvider` needs a recent sign-in, checked before anything in the call changes
    /// (a display name sent with it is not applied either); a password change keeps the session's `auth_time`.
    @Test func aListenerUnlinkNeedsARecentSignInAndAPasswordChangeKeepsAuthTime() async throws {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(clock: clock)
        let user = try await Self.listenerUser(broker, "lee@example.com")
        let signUpTime = try Self.authTime(user.idToken)
        let linked = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(try Self.google(broker, "g-lee"))",
            idToken: user.idToken)
        #expect(linked.status == 200)
        let session = try #require(linked.json?["idToken"]?.stringValue)
        #expect(try Self.authTime(session) == signUpTime)

        clock.advance(by: 120)
        let changed = await FirebaseClientAPITests.iOS(
            broker, "setAccountInfo",
            ["idToken": .string(session), "password": "new-secret", "returnSecureToken": true])
        #expect(changed.status == 200)
        let afterChange = try #require(changed.json?["idToken"]?.stringValue)
        #expect(try Self.authTime(afterChange) == signUpTime)
        #expect(try JWT(parsing: afterChange).claims["firebase"]?["sign_in_provider"] == "password")

        clock.advance(by: Self.stale)
        let refused = await FirebaseClientAPITests.iOS(
            broker, "setAccountInfo",
            ["idToken": .string(afterChange), "deleteProvider": ["google.com"], "displayName": "Mallory"])
        #expect(refused.status == 400)
        #expect(FirebaseClientAPITests.code(refused) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        let account = try #require(await broker.store.account(id: user.uid))
        #expect(account.identity(ProviderID("google")) != nil)
        #expect(account.displayName == nil)
        // Without deleteProvider the same stale session still changes its profile.
        let profile = await FirebaseClientAPITests.iOS(
            broker, "setAccountInfo", ["idToken": .string(afterChange), "displayName": "Lee"])
        #expect(profile.status == 200)
        #expect(await broker.store.account(id: user.uid)?.displayName == "Lee")
    }

    /// A refused `setAccountInfo` changes nothing: what the call would refuse (a photo URL, the last way in) is refused
    /// before its password change, profile change and unlinks are written; unlinks are one change (all or none),
    /// a provider named twice unlinked once, and a password set in the same call counts as a way in.
    @Test func aRefusedAccountUpdateChangesNothing() async throws {
        let broker = try await InProcessBroker.start()
        let google = try await Self.google(broker, "g-update", email: "update@example.com")
        let signedIn = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(google)")
        let idToken = try #require(signedIn.json?["idToken"]?.stringValue)
        let refresh = try #require(signedIn.json?["refreshToken"]?.stringValue)
        let uid = AccountID(try #require(signedIn.json?["localId"]?.stringValue))

        let badPhoto = await FirebaseClientAPITests.iOS(
            broker, "setAccountInfo",
            [
                "idToken": .string(idToken), "password": "new-secret", "photoUrl": "javascript:alert(1)",
                "displayName": "X",
            ])
        #expect(badPhoto.status == 400)
        #expect(FirebaseClientAPITests.code(badPhoto) == "INVALID_PHOTO_URL")
        let lastWayIn = await FirebaseClientAPITests.iOS(
            broker, "setAccountInfo",
            ["idToken": .string(idToken), "displayName": "Y", "deleteProvider": ["google.com", "google.com"]])
        #expect(lastWayIn.status == 400)
        #expect(FirebaseClientAPITests.code(lastWayIn) == "MISSING_PROVIDER_ID")
        // Nothing changed: no password, no name, the identity, and the session (a password change ends it).
        let account = try #require(await broker.store.account(id: uid))
        #expect(
            account.password?.hash == nil && account.displayName == nil && account.identity(ProviderID("google")) != nil
        )
        #expect((try? await broker.services.sessions.refresh(refresh, surface: .firebase)) != nil)

        // A password set in the same call is a way in: the unlink (named twice) is made once, with the password.
        let fresh = await FirebaseClientAPITests.verifyAssertion(
            broker, postBody: "providerId=google.com&id_token=\(google)")
        let done = await FirebaseClientAPITests.iOS(
            broker, "setAccountInfo",
            [
                "idToken": .string(try #require(fresh.json?["idToken"]?.stringValue)), "password": "new-secret",
                "deleteProvider": ["google.com", "google.com"], "returnSecureToken": true,
            ])
        #expect(done.status == 200)
        let after = try #require(await broker.store.account(id: uid))
        #expect(after.identities.isEmpty && after.hasUsablePassword)
        let unlinks = await broker.store.auditEvents(uid: uid, before: nil, limit: 50).filter { $0.action == .unlink }
        #expect(unlinks.map(\.outcome) == ["success"])
    }
}
