import BrokerCore
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 10: Apple's server-to-server notifications, `POST /v1/webhooks/apple`: verified against
/// Apple's keys (no `exp`, `iat` at most 24 hours old, each `jti` once), then `consent-revoked`, `account-delete`,
/// `email-disabled` and `email-enabled` applied by the account lifecycle; a forged, stale or replayed notification
/// changes nothing.
@Suite struct AppleNotificationTests {
    static func start(onUnlink: String? = nil) async throws -> InProcessBroker {
        try await InProcessBroker.start { document in
            guard let onUnlink, case .object(var members) = document else { return document }
            members["lifecycle"] = ["onUnlink": .string(onUnlink)]
            return .object(members)
        }
    }

    static func signIn(_ broker: InProcessBroker, subject: String, email: String? = nil) async throws -> TestResponse {
        let nonce = "nonce-" + Hex.encode(SecureRandom.bytes(6))
        var claims: [String: JSONValue] = ["sub": .string(subject), "nonce": .string(Hex.encode(Digest.sha256(nonce)))]
        if let email { claims["email"] = .string(email) }
        let token = try broker.stubs.idToken("apple", claims: claims)
        return await broker.post("/v1/signin/apple", ["identityToken": .string(token), "rawNonce": .string(nonce)])
    }

    static func session(_ broker: InProcessBroker, subject: String, email: String? = nil) async throws
        -> (uid: AccountID, idToken: String)
    {
        let session = try await signIn(broker, subject: subject, email: email)
        #expect(session.status == 201)
        return (
            AccountID(try #require(session.json?["user"]?["uid"]?.stringValue)),
            try #require(session.json?["idToken"]?.stringValue)
        )
    }

    static func deliver(_ broker: InProcessBroker, _ body: JSONValue) async -> TestResponse {
        await broker.post(StubProviders.appleNotificationPath, body)
    }

    static func me(_ broker: InProcessBroker, _ idToken: String) async -> TestResponse {
        await broker.get("/v1/me", headers: ["Authorization": "Bearer " + idToken])
    }

    @Test func consentRevokedEndsTheSessionsDropsTheTokenAndDisablesUntilTheNextAppleSignIn() async throws {
        let broker = try await Self.start()
        let (uid, idToken) = try await Self.session(broker, subject: "apple-n-1")
        // A stored Apple token (as a code exchange leaves it) is dropped.
        _ = try await broker.store.update(id: uid) { account in account.identities[0].providerToken = "sealed-token" }
        let response = await Self.deliver(
            broker, try broker.stubs.appleNotification(type: "consent-revoked", subject: "apple-n-1"))
        #expect(response.status == 200)
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.disabled && account.disabledBy == ProviderID("apple"))
        #expect(account.identity(ProviderID("apple"))?.providerToken == nil)
        #expect(await Self.me(broker, idToken).status == 401)
        // Nothing is asked of Apple: the user revoked already.
        #expect(await broker.store.outboxJobs(uid: uid, limit: 10).isEmpty)

        let back = try await Self.signIn(broker, subject: "apple-n-1")
        #expect(back.status == 200)
        #expect(await broker.store.account(id: uid)?.disabled == false)
        // Newest first: the sign-in, and the enable it caused, written with it.
        let trail = await broker.store.auditEvents(uid: uid, before: nil, limit: 10)
        #expect(trail.prefix(2).map(\.action.rawValue) == ["sign_in", "enable"])
        #expect(trail[1].actor == .system && trail[1].provider == "apple")
        #expect(trail.filter { $0.action == .enable }.count == 1)
    }

    @Test func theAdminViewShowsWhichProviderDisabledTheAccountUntilItsNextSignIn() async throws {
        let token = "an-admin-token-of-32-characters!"
        let broker = try await InProcessBroker.start(adminToken: token)
        let admin = ["Authorization": "Bearer " + token]
        let (uid, _) = try await Self.session(broker, subject: "apple-n-12")
        #expect(await broker.get("/admin/v1/users/\(uid)", headers: admin).json?["disabledBy"] == .null)
        let body = try broker.stubs.appleNotification(type: "consent-revoked", subject: "apple-n-12")
        #expect(await Self.deliver(broker, body).status == 200)
        let disabled = await broker.get("/admin/v1/users/\(uid)", headers: admin)
        #expect(disabled.status == 200)
        #expect(disabled.json?["disabled"] == .bool(true))
        #expect(disabled.json?["disabledBy"]?.stringValue == "apple")
        #expect(try await Self.signIn(broker, subject: "apple-n-12").status == 200)
        let back = await broker.get("/admin/v1/users/\(uid)", headers: admin)
        #expect(back.json?["disabled"] == .bool(false))
        #expect(back.json?["disabledBy"] == .null)
    }

    @Test func consentRevokedWithOnUnlinkDeleteDeletes() async throws {
        let broker = try await Self.start(onUnlink: "delete")
        let (uid, _) = try await Self.session(broker, subject: "apple-n-2")
        let body = try broker.stubs.appleNotification(type: "consent-revoked", subject: "apple-n-2")
        #expect(await Self.deliver(broker, body).status == 200)
        #expect(await broker.store.account(id: uid) == nil)
        #expect(await broker.store.outboxJobs(uid: uid, limit: 10).filter { $0.kind.rawValue == "apple.revoke" }.isEmpty)
    }

    @Test func accountDeleteDeletesTheAccountWhenAppleWasTheOnlyWayIn() async throws {
        let broker = try await Self.start()
        let (uid, idToken) = try await Self.session(broker, subject: "apple-n-3")
        let body = try broker.stubs.appleNotification(type: "account-delete", subject: "apple-n-3")
        #expect(await Self.deliver(broker, body).status == 200)
        #expect(await broker.store.account(id: uid) == nil)
        #expect(await Self.me(broker, idToken).status == 401)
    }

    @Test func accountDeleteUnlinksAppleFromAnAccountWithAnotherWayIn() async throws {
        let broker = try await Self.start()
        let (uid, _) = try await Self.session(broker, subject: "apple-n-4")
        _ = try await broker.store.update(id: uid) { account in
            account.identities.append(Identity(provider: ProviderID("google"), subject: "g-n-4", email: nil, linkedAt: Date()))
        }
        let body = try broker.stubs.appleNotification(type: "account-delete", subject: "apple-n-4")
        #expect(await Self.deliver(broker, body).status == 200)
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.identities.map(\.provider) == [ProviderID("google")])
        #expect(!account.disabled)
        #expect(await broker.store.account(provider: ProviderID("apple"), subject: "apple-n-4") == nil)
    }

    @Test func emailDisabledClearsTheIdentitysEmailAndEmailEnabledRestoresIt() async throws {
        let broker = try await Self.start()
        let relay = "x1y2@privaterelay.appleid.com"
        let (uid, _) = try await Self.session(broker, subject: "apple-n-5", email: relay)
        let disabled = try broker.stubs.appleNotification(type: "email-disabled", subject: "apple-n-5", email: relay)
        #expect(await Self.deliver(broker, disabled).status == 200)
        var account = try #require(await broker.store.account(id: uid))
        #expect(account.identity(ProviderID("apple"))?.email == nil)
        #expect(account.email == relay)  // the account's own email is left alone
        #expect(!account.disabled)
        let enabled = try broker.stubs.appleNotification(type: "email-enabled", subject: "apple-n-5", email: relay)
        #expect(await Self.deliver(broker, enabled).status == 200)
        account = try #require(await broker.store.account(id: uid))
        #expect(account.identity(ProviderID("apple"))?.email == relay)
        let actions = await broker.store.auditEvents(uid: uid, before: nil, limit: 20).map(\.action.rawValue)
        #expect(actions.contains("email_disabled") && actions.contains("email_enabled"))
    }

    @Test func anUnknownSubjectOrEventTypeIsAnswered200() async throws {
        let broker = try await Self.start()
        #expect(await Self.deliver(broker, try broker.stubs.appleNotification(type: "consent-revoked", subject: "nobody")).status == 200)
        #expect(await Self.deliver(broker, try broker.stubs.appleNotification(type: "something-new", subject: "nobody")).status == 200)
    }

    @Test func aForgedNotificationIs401AndChangesNothing() async throws {
        let broker = try await Self.start()
        let (uid, idToken) = try await Self.session(broker, subject: "apple-n-6")
        let forged = try broker.stubs.appleNotification(
            type: "consent-revoked", subject: "apple-n-6", signingKey: try RSAPrivateKey.generate(bits: 2048))
        let response = await Self.deliver(broker, forged)
        #expect(response.status == 401)
        #expect(response.errorCode == "INVALID_WEBHOOK")
        // Another audience is refused too.
        let token = try broker.stubs.idToken(
            "apple", claims: ["sub": .null, "exp": .null, "aud": "com.other.app", "jti": "j-aud",
                              "events": "{\"type\":\"consent-revoked\",\"sub\":\"apple-n-6\"}"])
        #expect(await Self.deliver(broker, ["payload": .string(token)]).errorCode == "INVALID_WEBHOOK")
        #expect(await Self.deliver(broker, ["payload": "not-a-jwt"]).errorCode == "INVALID_WEBHOOK")
        #expect(await Self.deliver(broker, ["nothing": "here"]).status == 400)
        #expect(await broker.store.account(id: uid)?.disabled == false)
        #expect(await Self.me(broker, idToken).status == 200)
    }

    @Test func aNotificationOlderThan24HoursOrFromTheFutureIsRefused() async throws {
        let broker = try await Self.start()
        let (uid, _) = try await Self.session(broker, subject: "apple-n-7")
        let old = try broker.stubs.appleNotification(
            type: "consent-revoked", subject: "apple-n-7", issuedAt: Date().addingTimeInterval(-25 * 3600))
        #expect(await Self.deliver(broker, old).errorCode == "INVALID_WEBHOOK")
        let future = try broker.stubs.appleNotification(
            type: "consent-revoked", subject: "apple-n-7", issuedAt: Date().addingTimeInterval(3600))
        #expect(await Self.deliver(broker, future).errorCode == "INVALID_WEBHOOK")
        #expect(await broker.store.account(id: uid)?.disabled == false)
        // 23 hours old is still accepted.
        let recent = try broker.stubs.appleNotification(
            type: "consent-revoked", subject: "apple-n-7", issuedAt: Date().addingTimeInterval(-23 * 3600))
        #expect(await Self.deliver(broker, recent).status == 200)
        #expect(await broker.store.account(id: uid)?.disabled == true)
    }

    /// A notification needs no `exp`, but one that carries a past `exp` (beyond the clock skew) is refused like any
    /// other invalid notification and acts on nothing; its `jti` is not spent.
    @Test func aCorrectlySignedNotificationWhoseExpIsPastIsRefused() async throws {
        let broker = try await Self.start()
        let (uid, idToken) = try await Self.session(broker, subject: "apple-n-13")
        let expired = try broker.stubs.appleNotification(
            type: "consent-revoked", subject: "apple-n-13", jti: "jti-expired", issuedAt: Date().addingTimeInterval(-3600),
            expiresAt: Date().addingTimeInterval(-600))
        let response = await Self.deliver(broker, expired)
        #expect(response.status == 401)
        #expect(response.errorCode == "INVALID_WEBHOOK")
        let account = try #require(await broker.store.account(id: uid))
        #expect(!account.disabled)
        #expect(await Self.me(broker, idToken).status == 200)
        #expect(await broker.store.auditEvents(uid: uid, before: nil, limit: 10).allSatisfy { $0.action != .disable })
        let deletion = try broker.stubs.appleNotification(
            type: "account-delete", subject: "apple-n-13", expiresAt: Date().addingTimeInterval(-600))
        #expect(await Self.deliver(broker, deletion).errorCode == "INVALID_WEBHOOK")
        #expect(await broker.store.account(id: uid) != nil)

        // An exp still ahead is accepted, and the refused one's jti was not spent.
        let fresh = try broker.stubs.appleNotification(
            type: "consent-revoked", subject: "apple-n-13", jti: "jti-expired", expiresAt: Date().addingTimeInterval(600))
        #expect(await Self.deliver(broker, fresh).status == 200)
        #expect(await broker.store.account(id: uid)?.disabled == true)
    }

    @Test func aReplayedJTIChangesNothing() async throws {
        let broker = try await Self.start()
        let (uid, _) = try await Self.session(broker, subject: "apple-n-8")
        let body = try broker.stubs.appleNotification(type: "consent-revoked", subject: "apple-n-8", jti: "jti-once")
        #expect(await Self.deliver(broker, body).status == 200)
        // The user comes back; the same notification again must not disable the account a second time.
        #expect(try await Self.signIn(broker, subject: "apple-n-8").status == 200)
        let replay = await Self.deliver(broker, body)
        #expect(replay.status == 200)
        #expect(await broker.store.account(id: uid)?.disabled == false)
        // Another notification with the same jti is a replay too.
        let again = try broker.stubs.appleNotification(type: "consent-revoked", subject: "apple-n-8", jti: "jti-once")
        #expect(await Self.deliver(broker, again).status == 200)
        #expect(await broker.store.account(id: uid)?.disabled == false)
    }

    @Test func aReplayedDeletionDoesNotDeleteTheAccountTheUserMadeSince() async throws {
        let broker = try await Self.start()
        let (gone, _) = try await Self.session(broker, subject: "apple-n-10")
        let body = try broker.stubs.appleNotification(type: "account-delete", subject: "apple-n-10", jti: "jti-delete")
        #expect(await Self.deliver(broker, body).status == 200)
        #expect(await broker.store.account(id: gone) == nil)
        // The same Apple user signs up again; the replayed deletion finds the jti and leaves the new account be.
        let (uid, idToken) = try await Self.session(broker, subject: "apple-n-10")
        #expect(uid != gone)
        #expect(await Self.deliver(broker, body).status == 200)
        #expect(await broker.store.account(id: uid) != nil)
        #expect(await Self.me(broker, idToken).status == 200)
    }

    @Test func aNotificationForNoAccountIsRememberedSoItsReplayChangesNothingLater() async throws {
        let broker = try await Self.start()
        let body = try broker.stubs.appleNotification(type: "consent-revoked", subject: "apple-n-11", jti: "jti-early")
        #expect(await Self.deliver(broker, body).status == 200)
        // The notification found nobody; the user signs up afterwards, and a replay must not disable them.
        let (uid, idToken) = try await Self.session(broker, subject: "apple-n-11")
        #expect(await Self.deliver(broker, body).status == 200)
        #expect(await broker.store.account(id: uid)?.disabled == false)
        #expect(await Self.me(broker, idToken).status == 200)
    }

    @Test func scriptsGetSignedNotificationsAndKakaoCallbacksFromTheStubsControlRoutes() async throws {
        let broker = try await Self.start()
        let (uid, _) = try await Self.session(broker, subject: "apple-n-9")
        let client = broker.stubs.inProcessClient()
        let minted = try await client.send(
            HTTPClientRequest(
                method: "POST", url: InProcessBroker.stubsBaseURL + "/apple/notifications",
                body: JSONValue.object(["type": "consent-revoked", "sub": "apple-n-9"]).serialized()))
        #expect(minted.status == 200)
        let body = try #require(JSONValue.parse(minted.body))
        #expect(await Self.deliver(broker, body).status == 200)
        #expect(await broker.store.account(id: uid)?.disabled == true)

        let stale = try await client.send(
            HTTPClientRequest(
                method: "POST", url: InProcessBroker.stubsBaseURL + "/apple/notifications",
                body: JSONValue.object(["type": "consent-revoked", "sub": "apple-n-9", "ageSeconds": 90_000]).serialized()))
        #expect(await Self.deliver(broker, try #require(JSONValue.parse(stale.body))).errorCode == "INVALID_WEBHOOK")

        let kakaoUser = broker.stubs.kakaoAccessToken(for: KakaoStubUser(id: 4_400_000_001))
        let kakao = await broker.post("/v1/signin/kakao", ["accessToken": .string(kakaoUser)])
        let kakaoUID = AccountID(try #require(kakao.json?["user"]?["uid"]?.stringValue))
        let callback = try await client.send(
            HTTPClientRequest(
                method: "POST", url: InProcessBroker.stubsBaseURL + "/kakao/unlink-callback",
                body: JSONValue.object(["userId": .int(4_400_000_001), "adminKey": "wrong"]).serialized()))
        let request = try #require(JSONValue.parse(callback.body))
        let headers = (request["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        let sent = await broker.request(
            "POST", try #require(request["path"]?.stringValue), body: Array((request["body"]?.stringValue ?? "").utf8),
            headers: headers)
        // No adminKeyFile here, and a wrong key besides: refused, nothing changed.
        #expect(sent.errorCode == "INVALID_WEBHOOK")
        #expect(headers["Authorization"] == "KakaoAK wrong")
        #expect(await broker.store.account(id: kakaoUID)?.disabled == false)
    }
}
