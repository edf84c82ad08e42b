import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 10: Kakao's unlink callback, `POST /v1/webhooks/kakao/unlink`, authenticated by the primary
/// admin key and the app id; the account of that Kakao user loses its sessions and, when Kakao was its only way in,
/// is disabled (enabled again by the next Kakao sign-in; an administrator's disable stays) or deleted
/// (`lifecycle.onUnlink`).
@Suite struct KakaoUnlinkCallbackTests {
    static let adminToken = "an-admin-token-of-32-characters!"

    static func start(onUnlink: String? = nil, adminKey: Bool = true) async throws -> InProcessBroker {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kakao-admin-\(UUID().uuidString)")
        try Data((StubKakaoAdmin.adminKey + "\n").utf8).write(to: file)
        return try await InProcessBroker.start(adminToken: adminToken) { document in
            guard case .object(var members) = document, case .object(var providers)? = members["providers"],
                case .object(var kakao)? = providers["kakao"]
            else { return document }
            if adminKey { kakao["adminKeyFile"] = .string(file.path) }
            providers["kakao"] = .object(kakao)
            members["providers"] = .object(providers)
            if let onUnlink { members["lifecycle"] = ["onUnlink": .string(onUnlink)] }
            return .object(members)
        }
    }

    static func signIn(_ broker: InProcessBroker, id: Int64) async -> TestResponse {
        let token = broker.stubs.kakaoAccessToken(for: KakaoStubUser(id: id, email: "k\(id)@example.kr"))
        return await broker.post("/v1/signin/kakao", ["accessToken": .string(token)])
    }

    static func session(_ broker: InProcessBroker, id: Int64) async throws -> (uid: AccountID, idToken: String) {
        let session = await signIn(broker, id: id)
        #expect(session.status == 201)
        return (
            AccountID(try #require(session.json?["user"]?["uid"]?.stringValue)),
            try #require(session.json?["idToken"]?.stringValue)
        )
    }

    static func deliver(_ broker: InProcessBroker, _ callback: StubProviders.KakaoUnlinkCallback, query: String = "")
        async -> TestResponse
    {
        await broker.request(
            "POST", StubProviders.KakaoUnlinkCallback.path + query, body: callback.body, headers: callback.headers)
    }

    static func me(_ broker: InProcessBroker, _ idToken: String) async -> TestResponse {
        await broker.get("/v1/me", headers: ["Authorization": "Bearer " + idToken])
    }

    static func actions(_ broker: InProcessBroker, _ uid: AccountID) async throws -> [String] {
        await broker.store.auditEvents(uid: uid, before: nil, limit: 50).map(\.action.rawValue)
    }

    @Test func anUnlinkRevokesTheSessionsAndDisablesUntilTheNextKakaoSignIn() async throws {
        let broker = try await Self.start()
        let (uid, idToken) = try await Self.session(broker, id: 4_200_000_001)
        #expect(await Self.me(broker, idToken).status == 200)

        let response = await Self.deliver(broker, .init(userID: 4_200_000_001))
        #expect(response.status == 200)
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.disabled)
        #expect(account.disabledBy == ProviderID("kakao"))
        #expect(account.identity(ProviderID("kakao"))?.subject == "4200000001")  // the link is kept
        let revoked = await Self.me(broker, idToken)
        #expect(revoked.status == 401)
        #expect(revoked.errorCode == "UNAUTHENTICATED")
        let actions = try await Self.actions(broker, uid)
        #expect(actions.contains("consent_revoked") && actions.contains("revoke_sessions") && actions.contains("disable"))
        // Kakao's own unlink is not asked for: the user left already.
        #expect(await broker.store.outboxJobs(uid: uid, limit: 10).isEmpty)

        let back = await Self.signIn(broker, id: 4_200_000_001)
        #expect(back.status == 200)
        #expect(back.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        #expect(back.json?["user"]?["disabled"] == false)
        let enabled = try #require(await broker.store.account(id: uid))
        #expect(!enabled.disabled && enabled.disabledBy == nil)
        #expect(await Self.me(broker, try #require(back.json?["idToken"]?.stringValue)).status == 200)
        #expect(await Self.me(broker, idToken).status == 401)  // the old session stays ended
    }

    @Test func anAdministratorsDisableIsNotUndoneByAKakaoSignIn() async throws {
        let broker = try await Self.start()
        let (uid, _) = try await Self.session(broker, id: 4_200_000_002)
        let disabled = await broker.request(
            "PATCH", "/admin/v1/users/\(uid.rawValue)", json: ["disabled": true],
            headers: ["Authorization": "Bearer " + Self.adminToken])
        #expect(disabled.status == 200)
        #expect(await Self.deliver(broker, .init(userID: 4_200_000_002)).status == 200)
        let account = try #require(await broker.store.account(id: uid))
        #expect(account.disabled && account.disabledBy == nil)
        let refused = await Self.signIn(broker, id: 4_200_000_002)
        #expect(refused.status == 403)
        #expect(refused.errorCode == "USER_DISABLED")
    }

    @Test func anAdministratorsDisableOfAProviderDisabledAccountMakesItTheirs() async throws {
        let broker = try await Self.start()
        let (uid, _) = try await Self.session(broker, id: 4_200_000_009)
        #expect(await Self.deliver(broker, .init(userID: 4_200_000_009)).status == 200)
        let patched = await broker.request(
            "PATCH", "/admin/v1/users/\(uid.rawValue)", json: ["disabled": true],
            headers: ["Authorization": "Bearer " + Self.adminToken])
        #expect(patched.status == 200)
        #expect(await broker.store.account(id: uid)?.disabledBy == nil)
        #expect(await Self.signIn(broker, id: 4_200_000_009).errorCode == "USER_DISABLED")
    }

    @Test func withOnUnlinkDeleteTheAccountIsDeletedWithoutAskingKakaoAgain() async throws {
        let broker = try await Self.start(onUnlink: "delete")
        let (uid, idToken) = try await Self.session(broker, id: 4_200_000_003)
        #expect(await Self.deliver(broker, .init(userID: 4_200_000_003)).status == 200)
        #expect(await broker.store.account(id: uid) == nil)
        #expect(await broker.store.outboxJobs(uid: uid, limit: 10).filter { $0.kind == .kakaoUnlink }.isEmpty)
        #expect(await Self.me(broker, idToken).status == 401)
        #expect(try await Self.actions(broker, uid).contains("delete"))
        // A later sign-in is a new account.
        #expect(await Self.signIn(broker, id: 4_200_000_003).status == 201)
    }

    @Test func anAccountWithAnotherWayInLosesItsSessionsButStaysEnabled() async throws {
        let broker = try await Self.start()
        let (uid, idToken) = try await Self.session(broker, id: 4_200_000_004)
        _ = try await broker.store.update(id: uid) { account in
            account.identities.append(
                Identity(provider: ProviderID("google"), subject: "g-4", email: nil, linkedAt: Date()))
        }
        #expect(await Self.deliver(broker, .init(userID: 4_200_000_004)).status == 200)
        let account = try #require(await broker.store.account(id: uid))
        #expect(!account.disabled)
        #expect(account.identities.count == 2)
        #expect(await Self.me(broker, idToken).status == 401)
    }

    @Test func aWrongKeyOrAppIDIs401AndChangesNothing() async throws {
        let broker = try await Self.start()
        let (uid, idToken) = try await Self.session(broker, id: 4_200_000_005)
        var wrongKey = StubProviders.KakaoUnlinkCallback(userID: 4_200_000_005)
        wrongKey.adminKey = "not-the-admin-key"
        var wrongApp = StubProviders.KakaoUnlinkCallback(userID: 4_200_000_005)
        wrongApp.appID = "999999"
        for callback in [wrongKey, wrongApp] {
            let response = await Self.deliver(broker, callback)
            #expect(response.status == 401)
            #expect(response.errorCode == "INVALID_WEBHOOK")
        }
        let noHeader = await broker.request(
            "POST", StubProviders.KakaoUnlinkCallback.path, body: wrongApp.body,
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(noHeader.errorCode == "INVALID_WEBHOOK")
        let account = try #require(await broker.store.account(id: uid))
        #expect(!account.disabled && account.tokensValidAfter == nil)
        #expect(await Self.me(broker, idToken).status == 200)
        #expect(!(try await Self.actions(broker, uid).contains("consent_revoked")))
    }

    @Test func withoutAnAdminKeyFileEveryCallIsRefused() async throws {
        let broker = try await Self.start(adminKey: false)
        let (uid, _) = try await Self.session(broker, id: 4_200_000_006)
        let response = await Self.deliver(broker, .init(userID: 4_200_000_006))
        #expect(response.status == 401)
        #expect(response.errorCode == "INVALID_WEBHOOK")
        #expect(await broker.store.account(id: uid)?.disabled == false)
    }

    @Test func failedCallsCountTowardTheAdminThrottle() async throws {
        let broker = try await Self.start()
        var wrongKey = StubProviders.KakaoUnlinkCallback(userID: 1)
        wrongKey.adminKey = "guess"
        for _ in 0..<AdminGate.maximumFailures {
            #expect(await Self.deliver(broker, wrongKey).status == 401)
        }
        let locked = await Self.deliver(broker, .init(userID: 1))
        #expect(locked.status == 429)
        #expect(locked.errorCode == "TOO_MANY_ATTEMPTS")
        let admin = await broker.get("/admin/v1/users", headers: ["Authorization": "Bearer " + Self.adminToken])
        #expect(admin.status == 429)
    }

    @Test func fieldsInTheBodyAndTheQueryMustAgree() async throws {
        let broker = try await Self.start()
        let (uid, _) = try await Self.session(broker, id: 4_200_000_007)
        let differing = await Self.deliver(broker, .init(userID: 4_200_000_007), query: "?user_id=4200000008")
        #expect(differing.status == 400)
        #expect(differing.errorCode == "INVALID_REQUEST")
        #expect(await broker.store.account(id: uid)?.disabled == false)
        // The same value in both is fine; so are query fields alone.
        #expect(await Self.deliver(broker, .init(userID: 4_200_000_007), query: "?user_id=4200000007").status == 200)
        #expect(await broker.store.account(id: uid)?.disabled == true)
        let callback = StubProviders.KakaoUnlinkCallback(userID: 4_200_000_007)
        let queryOnly = await broker.request(
            "POST",
            StubProviders.KakaoUnlinkCallback.path + "?app_id=\(callback.appID)&user_id=4200000007&referrer_type=UNLINK_FROM_APPS",
            headers: ["Authorization": "KakaoAK " + StubKakaoAdmin.adminKey])
        #expect(queryOnly.status == 200)
        let noUser = await broker.request(
            "POST", StubProviders.KakaoUnlinkCallback.path + "?app_id=\(callback.appID)",
            headers: ["Authorization": "KakaoAK " + StubKakaoAdmin.adminKey])
        #expect(noUser.status == 400)
    }

    @Test func anUnknownUserIsAnswered200() async throws {
        let broker = try await Self.start()
        #expect(await Self.deliver(broker, .init(userID: 4_299_999_999)).status == 200)
        #expect(await broker.store.account(provider: ProviderID("kakao"), subject: "4299999999") == nil)
    }

    @Test func onUnlinkIsValidated() async throws {
        let document = StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:1", issuer: "http://127.0.0.1:8080")
        guard case .object(var members) = document else { return }
        members["lifecycle"] = ["onUnlink": "archive"]
        #expect(throws: ConfigError.self) {
            _ = try BrokerConfig(parsing: JSONValue.object(members).serialized(), environment: [:], sections: FirebaseModule.configSections)
        }
        members["lifecycle"] = ["onUnlink": "delete", "other": true]
        #expect(throws: ConfigError.self) {
            _ = try BrokerConfig(parsing: JSONValue.object(members).serialized(), environment: [:], sections: FirebaseModule.configSections)
        }
        members["lifecycle"] = ["onUnlink": "delete"]
        #expect(try BrokerConfig(parsing: JSONValue.object(members).serialized(), environment: [:], sections: FirebaseModule.configSections).onUnlink == .delete)
        members["lifecycle"] = nil
        #expect(try BrokerConfig(parsing: JSONValue.object(members).serialized(), environment: [:], sections: FirebaseModule.configSections).onUnlink == .disable)
    }
}
