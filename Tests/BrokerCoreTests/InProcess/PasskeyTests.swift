import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Contract section 15 over the native API: registration on a signed-in account, discoverable sign-in with the
/// counter advancing, list, rename and removal, every refusal (status, code, nothing stored; a refused sign-in counted
/// once and audited once), the admin view and delete.
@Suite struct PasskeyTests {
    static let adminToken = "admin-token-for-passkey-tests-0123456789"

    static func start(enabled: Bool = true, guests: Bool = false) async throws -> (InProcessBroker, ManualClock) {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(clock: clock, adminToken: adminToken) { document in
            guard case .object(var members) = document else { return document }
            if enabled {
                members["passkeys"] = [
                    "enabled": true, "rpId": "localhost", "rpName": "Acme", "origins": ["http://localhost"],
                ]
            }
            if guests { members["anonymous"] = ["enabled": true] }
            return .object(members)
        }
        return (broker, clock)
    }

    static func bearer(_ response: TestResponse) -> [String: String] {
        ["Authorization": "Bearer " + (response.json?["idToken"]?.stringValue ?? "")]
    }

    static func challenge(_ options: TestResponse) throws -> [UInt8] {
        let text = try #require(options.json?["publicKey"]?["challenge"]?.stringValue)
        return try #require(Base64URL.decode(text))
    }

    /// A password account `email` and its session.
    static func signUp(_ broker: InProcessBroker, _ email: String) async throws -> (TestResponse, AccountID) {
        let session = await broker.post("/v1/signup", ["email": .string(email), "password": "secret-1"])
        #expect(session.status == 201)
        return (session, AccountID(try #require(session.json?["user"]?["uid"]?.stringValue)))
    }

    /// Registers `authenticator` on the session's account, bent by `ceremony`.
    static func register(
        _ broker: InProcessBroker, _ session: TestResponse, _ authenticator: inout TestAuthenticator,
        _ ceremony: TestCeremony = TestCeremony(), name: String? = "Laptop"
    ) async throws -> TestResponse {
        let options = await broker.post("/v1/me/passkeys/options", [:], headers: bearer(session))
        #expect(options.status == 200)
        let handleText = try #require(options.json?["publicKey"]?["user"]?["id"]?.stringValue)
        let handle = try #require(Base64URL.decode(handleText))
        let credential = try authenticator.register(challenge: try challenge(options), userHandle: handle, ceremony)
        var body: [String: JSONValue] = ["credential": credential]
        if let name { body["name"] = .string(name) }
        return await broker.post("/v1/me/passkeys", .object(body), headers: bearer(session))
    }

    /// Signs in with `authenticator`, bent by `ceremony`.
    static func signIn(
        _ broker: InProcessBroker, _ authenticator: inout TestAuthenticator, _ ceremony: TestCeremony = TestCeremony()
    ) async throws -> (TestResponse, JSONValue) {
        let options = await broker.post("/v1/signin/passkey/options", [:])
        #expect(options.status == 200)
        let credential = try authenticator.authenticate(challenge: try challenge(options), ceremony)
        return (await broker.post("/v1/signin/passkey", ["credential": credential]), credential)
    }

    static func events(_ broker: InProcessBroker, _ action: AuditAction) async -> [AuditEvent] {
        await broker.store.auditEvents(uid: nil, before: nil, limit: 500).filter { $0.action == action }
    }

    @Test func registrationThenSignInWithTheCounterAdvancingAndAReplayRefused() async throws {
        let (broker, _) = try await Self.start()
        let (session, uid) = try await Self.signUp(broker, "pk@example.com")
        let options = await broker.post("/v1/me/passkeys/options", [:], headers: Self.bearer(session))
        let publicKey = try #require(options.json?["publicKey"])
        #expect(publicKey["rp"] == ["id": "localhost", "name": "Acme"])
        #expect(publicKey["authenticatorSelection"]?["residentKey"] == "required")
        #expect(publicKey["authenticatorSelection"]?["userVerification"] == "required")
        #expect(publicKey["attestation"] == "none")
        #expect(publicKey["pubKeyCredParams"]?.arrayValue?.compactMap { $0["alg"]?.intValue } == [-7, -19, -8, -257])
        #expect(try Self.challenge(options).count == 32)

        var authenticator = try TestAuthenticator()
        let registered = try await Self.register(broker, session, &authenticator)
        #expect(registered.status == 201)
        let id = Base64URL.encode(authenticator.credentialID)
        #expect(registered.json?["passkey"]?["id"]?.stringValue == id)
        #expect(registered.json?["passkey"]?["name"] == "Laptop")
        #expect(registered.json?["passkey"]?["publicKey"] == nil)
        #expect(await broker.store.passkeys(uid: uid).map(\.id) == [id])
        #expect(await Self.events(broker, .passkeyRegister).map(\.uid) == [uid])
        // The next options exclude it and keep the account's user handle.
        let again = await broker.post("/v1/me/passkeys/options", [:], headers: Self.bearer(session))
        #expect(
            again.json?["publicKey"]?["excludeCredentials"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
        let stored = try #require(await broker.store.passkey(id: id))
        #expect(again.json?["publicKey"]?["user"]?["id"]?.stringValue == stored.userHandle)

        let (first, credential) = try await Self.signIn(broker, &authenticator)
        #expect(first.status == 200)
        #expect(first.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        let claims = try JWT(parsing: try #require(first.json?["idToken"]?.stringValue)).claims
        #expect(claims["firebase"]?["sign_in_provider"] == "passkey" || claims["sign_in_provider"] == "passkey")
        #expect(await broker.store.passkey(id: id)?.signCount == 1)
        let (second, _) = try await Self.signIn(broker, &authenticator)
        #expect(second.status == 200)
        #expect(await broker.store.passkey(id: id)?.signCount == 2)
        #expect(await broker.store.passkey(id: id)?.lastUsedAt != nil)
        // The first assertion again: its challenge is spent.
        let replay = await broker.post("/v1/signin/passkey", ["credential": credential])
        #expect(replay.status == 401 && replay.errorCode == "INVALID_PASSKEY")
        #expect(await broker.store.passkey(id: id)?.signCount == 2)
        let signIns = await Self.events(broker, .signIn).filter { $0.provider == "passkey" }
        #expect(signIns.map(\.outcome).sorted() == ["INVALID_PASSKEY", "success", "success"])
        let samples = SignInFlowTests.samples(broker, "broker_signins_total")
        #expect(samples["{provider=\"passkey\",outcome=\"success\"}"] == 2)
        #expect(samples["{provider=\"passkey\",outcome=\"INVALID_PASSKEY\"}"] == 1)
    }

    @Test(arguments: TestAuthenticator.KeyKind.allCases)
    func everyKeyTypeRegistersAndSignsIn(kind: TestAuthenticator.KeyKind) async throws {
        let (broker, _) = try await Self.start()
        let (session, _) = try await Self.signUp(broker, "kind@example.com")
        var authenticator = try TestAuthenticator(kind)
        #expect(try await Self.register(broker, session, &authenticator).status == 201)
        #expect(try await Self.signIn(broker, &authenticator).0.status == 200)
    }

    /// A registration refusal: how the ceremony is bent.
    struct Bent: Sendable, CustomTestStringConvertible {
        var name: String
        var bend: @Sendable (inout TestCeremony) -> Void
        var testDescription: String { name }
    }

    static let registrationRefusals: [Bent] = [
        Bent(name: "type") { $0.type = "webauthn.get" },
        Bent(name: "challenge") { $0.challenge = Array(repeating: 1, count: 32) },
        Bent(name: "origin") { $0.origin = "https://evil.example" },
        Bent(name: "cross-origin") { $0.crossOrigin = true },
        Bent(name: "rpIdHash") { $0.rpID = "example.com" },
        Bent(name: "no UP") { $0.flags = 0x04 },
        Bent(name: "no UV") { $0.flags = 0x01 },
        Bent(name: "attestation") { $0.attestationObject = [0xa0] },
    ]

    @Test(arguments: registrationRefusals)
    func aRegistrationThatDoesNotVerifyIsRefusedAndStoresNothing(_ bent: Bent) async throws {
        let (broker, _) = try await Self.start()
        let (session, uid) = try await Self.signUp(broker, "bent@example.com")
        var authenticator = try TestAuthenticator()
        var ceremony = TestCeremony()
        bent.bend(&ceremony)
        let refused = try await Self.register(broker, session, &authenticator, ceremony)
        #expect(refused.status == 400 && refused.errorCode == "INVALID_PASSKEY")
        #expect(await broker.store.passkeys(uid: uid).isEmpty)
        // Counted and audited once, as a refused link is.
        let audited = await Self.events(broker, .passkeyRegister)
        #expect(audited.map(\.outcome) == ["INVALID_PASSKEY"] && audited.map(\.uid) == [uid])
        #expect(
            SignInFlowTests.samples(broker, "broker_links_total")
                == ["{provider=\"passkey\",outcome=\"INVALID_PASSKEY\"}": 1])
    }

    @Test func aChallengeWorksOnceAndOnlyForItsAccountAndCeremony() async throws {
        let (broker, _) = try await Self.start()
        let (ann, annID) = try await Self.signUp(broker, "ann@example.com")
        let (bob, bobID) = try await Self.signUp(broker, "bob@example.com")
        let options = await broker.post("/v1/me/passkeys/options", [:], headers: Self.bearer(ann))
        var authenticator = try TestAuthenticator()
        let credential = try authenticator.register(challenge: try Self.challenge(options), userHandle: [1, 2, 3])
        // Issued to Ann: Bob cannot use it (and it is spent).
        let stolen = await broker.post("/v1/me/passkeys", ["credential": credential], headers: Self.bearer(bob))
        #expect(stolen.status == 400 && stolen.errorCode == "INVALID_PASSKEY")
        let late = await broker.post("/v1/me/passkeys", ["credential": credential], headers: Self.bearer(ann))
        #expect(late.status == 400 && late.errorCode == "INVALID_PASSKEY")
        #expect(await broker.store.passkeys(uid: annID).isEmpty)
        #expect(await broker.store.passkeys(uid: bobID).isEmpty)
        // A sign-in challenge does not register.
        let signInOptions = await broker.post("/v1/signin/passkey/options", [:])
        let other = try authenticator.register(challenge: try Self.challenge(signInOptions), userHandle: [1])
        let wrongCeremony = await broker.post("/v1/me/passkeys", ["credential": other], headers: Self.bearer(ann))
        #expect(wrongCeremony.status == 400 && wrongCeremony.errorCode == "INVALID_PASSKEY")
    }

    @Test func anExpiredChallengeIsRefused() async throws {
        let (broker, clock) = try await Self.start()
        let (session, uid) = try await Self.signUp(broker, "late@example.com")
        let options = await broker.post("/v1/me/passkeys/options", [:], headers: Self.bearer(session))
        var authenticator = try TestAuthenticator()
        let credential = try authenticator.register(challenge: try Self.challenge(options), userHandle: [1])
        clock.advance(by: PasskeyService.challengeLifetime + 1)
        let fresh = await broker.post("/v1/signin/password", ["email": "late@example.com", "password": "secret-1"])
        let refused = await broker.post("/v1/me/passkeys", ["credential": credential], headers: Self.bearer(fresh))
        #expect(refused.status == 400 && refused.errorCode == "INVALID_PASSKEY")
        #expect(await broker.store.passkeys(uid: uid).isEmpty)
    }

    @Test func aCredentialIsRegisteredOnce() async throws {
        let (broker, _) = try await Self.start()
        let (ann, _) = try await Self.signUp(broker, "once-a@example.com")
        let (bob, bobID) = try await Self.signUp(broker, "once-b@example.com")
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, ann, &authenticator).status == 201)
        let again = try await Self.register(broker, bob, &authenticator)
        #expect(again.status == 409 && again.errorCode == "PASSKEY_EXISTS")
        #expect(await broker.store.passkeys(uid: bobID).isEmpty)
    }

    @Test func aRegistrationIsCountedAndAuditedOnceAndSoIsEachRefusal() async throws {
        let (broker, clock) = try await Self.start()
        let (ann, annID) = try await Self.signUp(broker, "count-a@example.com")
        let (bob, bobID) = try await Self.signUp(broker, "count-b@example.com")
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, ann, &authenticator).status == 201)
        let registered = await Self.events(broker, .passkeyRegister)
        #expect(registered.map(\.outcome) == ["success"] && registered.map(\.uid) == [annID])
        #expect(
            SignInFlowTests.samples(broker, "broker_links_total") == ["{provider=\"passkey\",outcome=\"success\"}": 1])

        let taken = try await Self.register(broker, bob, &authenticator)
        #expect(taken.status == 409 && taken.errorCode == "PASSKEY_EXISTS")
        // A session older than 5 minutes: its options were asked in time, the registration is late.
        let options = await broker.post("/v1/me/passkeys/options", [:], headers: Self.bearer(bob))
        var late = try TestAuthenticator()
        let handle = try #require(Base64URL.decode(options.json?["publicKey"]?["user"]?["id"]?.stringValue ?? ""))
        let credential = try late.register(challenge: try Self.challenge(options), userHandle: handle)
        clock.advance(by: 6 * 60)
        let stale = await broker.post("/v1/me/passkeys", ["credential": credential], headers: Self.bearer(bob))
        #expect(stale.status == 401 && stale.errorCode == "RECENT_SIGN_IN_REQUIRED")
        #expect(await broker.store.passkeys(uid: bobID).isEmpty)
        #expect(await broker.store.passkeys(uid: annID).count == 1)
        let refusals = await Self.events(broker, .passkeyRegister).filter { $0.uid == bobID }
        #expect(refusals.map(\.outcome).sorted() == ["PASSKEY_EXISTS", "RECENT_SIGN_IN_REQUIRED"])
        #expect(
            SignInFlowTests.samples(broker, "broker_links_total") == [
                "{provider=\"passkey\",outcome=\"success\"}": 1,
                "{provider=\"passkey\",outcome=\"PASSKEY_EXISTS\"}": 1,
                "{provider=\"passkey\",outcome=\"RECENT_SIGN_IN_REQUIRED\"}": 1,
            ])
    }

    @Test func registrationNeedsARecentSignIn() async throws {
        let (broker, clock) = try await Self.start()
        let (session, uid) = try await Self.signUp(broker, "old@example.com")
        clock.advance(by: 6 * 60)
        let options = await broker.post("/v1/me/passkeys/options", [:], headers: Self.bearer(session))
        #expect(options.status == 401 && options.errorCode == "RECENT_SIGN_IN_REQUIRED")
        #expect(await broker.store.passkeys(uid: uid).isEmpty)
    }

    static let signInRefusals: [Bent] = [
        Bent(name: "type") { $0.type = "webauthn.create" },
        Bent(name: "challenge") { $0.challenge = Array(repeating: 1, count: 32) },
        Bent(name: "origin") { $0.origin = "http://localhost:8080" },
        Bent(name: "cross-origin") { $0.crossOrigin = true },
        Bent(name: "rpIdHash") { $0.rpID = "evil.example" },
        Bent(name: "no UP") { $0.flags = 0x04 },
        Bent(name: "no UV") { $0.flags = 0x01 },
        Bent(name: "signature") { $0.corruptSignature = true },
        Bent(name: "userHandle") { $0.userHandle = [9, 9] },
        Bent(name: "counter") { $0.signCount = 0 },
        Bent(name: "unknown credential") { $0.responseCredentialID = [7, 7, 7] },
    ]

    @Test(arguments: signInRefusals)
    func aSignInThatDoesNotVerifyIsRefusedCountedAndAuditedOnce(_ bent: Bent) async throws {
        let (broker, _) = try await Self.start()
        let (session, uid) = try await Self.signUp(broker, "in@example.com")
        var authenticator = try TestAuthenticator(signCount: 5)
        #expect(try await Self.register(broker, session, &authenticator).status == 201)
        let id = Base64URL.encode(authenticator.credentialID)
        let before = await broker.store.sessionSummary(accountID: uid, at: broker.services.clock.now).live
        var ceremony = TestCeremony()
        bent.bend(&ceremony)
        let (refused, _) = try await Self.signIn(broker, &authenticator, ceremony)
        #expect(refused.status == 401 && refused.errorCode == "INVALID_PASSKEY")
        #expect(refused.json?["idToken"] == nil)
        #expect(await broker.store.passkey(id: id)?.signCount == 5)
        #expect(await broker.store.passkey(id: id)?.lastUsedAt == nil)
        #expect(await broker.store.sessionSummary(accountID: uid, at: broker.services.clock.now).live == before)
        let audited = await Self.events(broker, .signIn).filter { $0.provider == "passkey" }
        #expect(audited.map(\.outcome) == ["INVALID_PASSKEY"])
        let samples = SignInFlowTests.samples(broker, "broker_signins_total")
        #expect(samples["{provider=\"passkey\",outcome=\"INVALID_PASSKEY\"}"] == 1)
        #expect(samples["{provider=\"passkey\",outcome=\"success\"}"] == nil)
    }

    @Test func aDisabledAccountsPasskeyIsRefused() async throws {
        let (broker, _) = try await Self.start()
        let (session, uid) = try await Self.signUp(broker, "off@example.com")
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, session, &authenticator).status == 201)
        _ = try await broker.store.update(id: uid) { $0.disabled = true }
        let (refused, _) = try await Self.signIn(broker, &authenticator)
        #expect(refused.status == 403 && refused.errorCode == "USER_DISABLED")
        #expect(await broker.store.passkey(id: Base64URL.encode(authenticator.credentialID))?.signCount == 0)
    }

    @Test func theRoutesAnswer404WhenPasskeysAreOff() async throws {
        let (broker, _) = try await Self.start(enabled: false)
        let (session, _) = try await Self.signUp(broker, "none@example.com")
        let options = await broker.post("/v1/me/passkeys/options", [:], headers: Self.bearer(session))
        #expect(options.status == 404 && options.errorCode == "PROVIDER_NOT_ENABLED")
        let signIn = await broker.post("/v1/signin/passkey/options", [:])
        #expect(signIn.status == 404 && signIn.errorCode == "PROVIDER_NOT_ENABLED")
    }

    @Test func listRenameAndRemove() async throws {
        let (broker, clock) = try await Self.start()
        let (session, uid) = try await Self.signUp(broker, "list@example.com")
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, session, &authenticator).status == 201)
        let id = Base64URL.encode(authenticator.credentialID)
        let listed = await broker.get("/v1/me/passkeys", headers: Self.bearer(session))
        #expect(listed.json?["passkeys"]?.arrayValue?.map { $0["id"]?.stringValue } == [id])
        let renamed = await broker.request(
            "PATCH", "/v1/me/passkeys/\(id)", json: ["name": "Phone"], headers: Self.bearer(session))
        #expect(renamed.status == 200 && renamed.json?["passkey"]?["name"] == "Phone")
        let missing = await broker.request(
            "PATCH", "/v1/me/passkeys/nope", json: ["name": "X"], headers: Self.bearer(session))
        #expect(missing.status == 404 && missing.errorCode == "NOT_FOUND")
        clock.advance(by: 6 * 60)
        let stale = await broker.request("DELETE", "/v1/me/passkeys/\(id)", headers: Self.bearer(session))
        #expect(stale.status == 401 && stale.errorCode == "RECENT_SIGN_IN_REQUIRED")
        let fresh = await broker.post("/v1/signin/password", ["email": "list@example.com", "password": "secret-1"])
        let removed = await broker.request("DELETE", "/v1/me/passkeys/\(id)", headers: Self.bearer(fresh))
        #expect(removed.status == 204)
        #expect(await broker.store.passkeys(uid: uid).isEmpty)
        #expect(await Self.events(broker, .passkeyDelete).map(\.actor) == [.user])
    }

    @Test func aGuestIsUpgradedByAPasskeyWhichIsThenItsLastWayIn() async throws {
        let (broker, _) = try await Self.start(guests: true)
        let guest = await broker.post("/v1/signin/anonymous", [:])
        #expect(guest.status == 201)
        let uid = AccountID(try #require(guest.json?["user"]?["uid"]?.stringValue))
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, guest, &authenticator).status == 201)
        #expect(await broker.store.account(id: uid)?.isAnonymous == false)
        let (signedIn, _) = try await Self.signIn(broker, &authenticator)
        #expect(signedIn.status == 200 && signedIn.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        let id = Base64URL.encode(authenticator.credentialID)
        let last = await broker.request("DELETE", "/v1/me/passkeys/\(id)", headers: Self.bearer(signedIn))
        #expect(last.status == 400 && last.errorCode == "LAST_IDENTITY")
        #expect(await broker.store.passkeys(uid: uid).count == 1)
    }

    @Test func theAdminViewListsPasskeysWithoutKeysAndAnAdminRemovesOne() async throws {
        let (broker, _) = try await Self.start()
        let (session, uid) = try await Self.signUp(broker, "adm@example.com")
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, session, &authenticator).status == 201)
        let id = Base64URL.encode(authenticator.credentialID)
        let admin = ["Authorization": "Bearer " + Self.adminToken]
        let view = await broker.get("/admin/v1/users/\(uid.rawValue)", headers: admin)
        #expect(view.status == 200)
        #expect(view.json?["passkeys"]?.arrayValue?.map { $0["id"]?.stringValue } == [id])
        #expect(view.json?["passkeys"]?.arrayValue?.first?["publicKey"] == nil)
        let missing = await broker.request("DELETE", "/admin/v1/users/\(uid.rawValue)/passkeys/nope", headers: admin)
        #expect(missing.status == 404 && missing.errorCode == "NOT_FOUND")
        let removed = await broker.request("DELETE", "/admin/v1/users/\(uid.rawValue)/passkeys/\(id)", headers: admin)
        #expect(removed.status == 204)
        #expect(await broker.store.passkeys(uid: uid).isEmpty)
        #expect(await Self.events(broker, .passkeyDelete).map(\.actor) == [.admin])
    }

    @Test func aPasskeySignInSatisfiesBothFactors() async throws {
        let clock = ManualClock(Date())
        let broker = try await InProcessBroker.start(
            clock: clock, adminToken: Self.adminToken, cipher: try SecondFactorTests.cipher
        ) { document in
            guard case .object(var members) = document else { return document }
            members["mfa"] = ["totp": ["enabled": true]]
            members["passkeys"] = ["enabled": true, "rpId": "localhost", "origins": ["http://localhost"]]
            return .object(members)
        }
        let enrolled = try await SecondFactorTests.enrolled(broker, clock, "both@example.com")
        let password = await SecondFactorTests.signIn(broker, "both@example.com")
        #expect(password.status == 401 && password.errorCode == "MFA_REQUIRED")
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, enrolled.session, &authenticator).status == 201)
        let (signedIn, _) = try await Self.signIn(broker, &authenticator)
        #expect(signedIn.status == 200)
        #expect(signedIn.json?["user"]?["uid"]?.stringValue == enrolled.uid.rawValue)
        #expect(signedIn.json?["idToken"]?.stringValue != nil)
    }

    @Test func aPasskeyIsAWayInForAnUnlink() async throws {
        let (broker, _) = try await Self.start()
        let token = try broker.stubs.idToken("google", claims: ["sub": "g-only", "email_verified": false])
        let session = await broker.post("/v1/signin/google", ["idToken": .string(token)])
        #expect(session.status == 201)
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        // Its only way in: refused.
        let refused = await broker.request("DELETE", "/v1/me/identities/google", headers: Self.bearer(session))
        #expect(refused.status == 400 && refused.errorCode == "LAST_IDENTITY")
        #expect(await broker.store.account(id: uid)?.identities.count == 1)
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, session, &authenticator).status == 201)
        let unlinked = await broker.request("DELETE", "/v1/me/identities/google", headers: Self.bearer(session))
        #expect(unlinked.status == 200)
        #expect(await broker.store.account(id: uid)?.identities.isEmpty == true)
        // The passkey still signs in.
        let (signedIn, _) = try await Self.signIn(broker, &authenticator)
        #expect(signedIn.status == 200 && signedIn.json?["user"]?["uid"]?.stringValue == uid.rawValue)
    }

    @Test func aPasskeyIsAWayInForAnAdministratorsUnlinking() async throws {
        let (broker, _) = try await Self.start()
        let token = try broker.stubs.idToken("google", claims: ["sub": "g-admin", "email_verified": false])
        let session = await broker.post("/v1/signin/google", ["idToken": .string(token)])
        #expect(session.status == 201)
        let uid = AccountID(try #require(session.json?["user"]?["uid"]?.stringValue))
        let unlinking = AccountPatch(unlinking: [ProviderID("google")])
        // Its only way in: refused, nothing changed.
        await #expect {
            _ = try await broker.services.admin.update(uid, unlinking, requestID: "r1")
        } throws: { ($0 as? AccountAdminError)?.code == .lastIdentity }
        #expect(await broker.store.account(id: uid)?.identities.count == 1)
        var authenticator = try TestAuthenticator()
        #expect(try await Self.register(broker, session, &authenticator).status == 201)
        let updated = try await broker.services.admin.update(uid, unlinking, requestID: "r2")
        #expect(updated.identities.isEmpty)
        #expect(await broker.store.account(id: uid)?.identities.isEmpty == true)
        let (signedIn, _) = try await Self.signIn(broker, &authenticator)
        #expect(signedIn.status == 200 && signedIn.json?["user"]?["uid"]?.stringValue == uid.rawValue)
    }
}
