import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Guests, upgraded in place (contract section 13), over the in-process app: making one, its limit, and every
/// upgrade and refusal with the state after.
@Suite struct GuestTests {
    static func start(
        enabled: Bool = true, perHour: Int = 30, serviceAccount: Bool = false, clock: ManualClock = ManualClock(Date()),
        linkByVerifiedEmail: Bool = false
    ) async throws -> InProcessBroker {
        try await InProcessBroker.start(
            linkByVerifiedEmail: linkByVerifiedEmail, clock: clock, serviceAccount: serviceAccount
        ) { document in
            guard case .object(var members) = document else { return document }
            members["anonymous"] = ["enabled": .bool(enabled), "maxPerAddressPerHour": .int(Int64(perHour))]
            return .object(members)
        }
    }

    static func bearer(_ response: TestResponse) -> [String: String] {
        ["Authorization": "Bearer " + (response.json?["idToken"]?.stringValue ?? "")]
    }

    static func uid(_ response: TestResponse) -> AccountID {
        AccountID(response.json?["user"]?["uid"]?.stringValue ?? "")
    }

    static func claims(_ token: String?) throws -> [String: JSONValue] {
        try JWT(parsing: try #require(token)).claims
    }

    static func accounts(_ broker: InProcessBroker) async -> [Account] {
        await broker.store.listAccounts(filter: AccountFilter(), after: nil, limit: 100)
    }

    static func appleToken(_ broker: InProcessBroker, sub: String, email: String) throws -> JSONValue {
        [
            "identityToken": .string(
                try broker.stubs.idToken(
                    "apple",
                    claims: [
                        "sub": .string(sub), "email": .string(email), "email_verified": true,
                        "nonce": .string(Hex.encode(Digest.sha256("n"))),
                    ])),
            "rawNonce": "n",
        ]
    }

    static func googleToken(
        _ broker: InProcessBroker, sub: String, email: String?, verified: Bool = true
    ) throws
        -> JSONValue
    {
        var claims: [String: JSONValue] = ["sub": .string(sub), "email_verified": .bool(verified)]
        if let email { claims["email"] = .string(email) }
        return ["idToken": .string(try broker.stubs.idToken("google", claims: claims))]
    }

    // MARK: Making a guest

    @Test func aGuestIsCreatedWithNoEmailNoIdentityAndAnAnonymousSession() async throws {
        let broker = try await Self.start(serviceAccount: true)
        let response = await broker.post("/v1/signin/anonymous", [:])
        #expect(response.status == 201)
        let body = try #require(response.json)
        #expect(body["isNewUser"] == true)
        #expect(body["user"]?["isAnonymous"] == true)
        #expect(body["user"]?["email"] == .null)
        #expect(body["user"]?["identities"] == .array([]))
        #expect(body["customToken"]?.stringValue?.isEmpty == false)
        let claims = try Self.claims(body["idToken"]?.stringValue)
        #expect(claims["sign_in_provider"] == "anonymous")
        #expect(claims["sub"]?.stringValue == Self.uid(response).rawValue)
        let custom = try Self.claims(body["customToken"]?.stringValue)
        #expect(custom["uid"]?.stringValue == Self.uid(response).rawValue)
        let stored = try #require(await broker.store.account(id: Self.uid(response)))
        #expect(stored.isAnonymous && stored.email == nil && stored.identities.isEmpty && stored.origin == .anonymous)
        // The signed-in user says so too; other accounts are not guests.
        #expect(await broker.get("/v1/me", headers: Self.bearer(response)).json?["isAnonymous"] == true)
        let signUp = await broker.post("/v1/signup", ["email": "u@example.com", "password": "secret-1"])
        #expect(signUp.json?["user"]?["isAnonymous"] == false)
        // Counted and audited once, as every sign-in.
        #expect(
            SignInFlowTests.samples(broker, "broker_signins_total")
                == ["{provider=\"anonymous\",outcome=\"created\"}": 1])
        let events = await broker.store.auditEvents(uid: Self.uid(response), before: nil, limit: 10)
        #expect(events.map(\.action) == [.signIn])
        #expect(events.first?.provider == "anonymous" && events.first?.outcome == "created")
    }

    @Test func aDisabledGuestSignInIsNotEnabledAndStoresNothing() async throws {
        let broker = try await Self.start(enabled: false)
        let response = await broker.post("/v1/signin/anonymous", [:])
        #expect(response.status == 404)
        #expect(response.errorCode == "PROVIDER_NOT_ENABLED")
        #expect(await Self.accounts(broker).isEmpty)
        #expect(SignInFlowTests.samples(broker, "broker_signins_total").isEmpty)
        #expect(await SignInFlowTests.events(broker).isEmpty)
    }

    @Test func aBodyWithFieldsIsAnInvalidRequest() async throws {
        let broker = try await Self.start()
        let response = await broker.post("/v1/signin/anonymous", ["email": "x@example.com"])
        #expect(response.status == 400)
        #expect(response.errorCode == "INVALID_REQUEST")
        #expect(await Self.accounts(broker).isEmpty)
    }

    @Test func moreGuestsThanTheHourlyLimitFromOneAddressAreRefusedUntilTheHourPasses() async throws {
        // Between two milliseconds, rounded up when stored: the wait is still at most the hour.
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000.0006))
        let broker = try await Self.start(perHour: 2, clock: clock)
        #expect(await broker.post("/v1/signin/anonymous", [:]).status == 201)
        #expect(await broker.post("/v1/signin/anonymous", [:]).status == 201)
        let refused = await broker.post("/v1/signin/anonymous", [:])
        #expect(refused.status == 429)
        #expect(refused.errorCode == "TOO_MANY_ATTEMPTS")
        #expect(refused.headers["retry-after"] == "3600")
        #expect(await Self.accounts(broker).count == 2)
        #expect(
            SignInFlowTests.samples(broker, "broker_signins_total")[
                "{provider=\"anonymous\",outcome=\"TOO_MANY_ATTEMPTS\"}"]
                == 1)
        clock.advance(by: 3601)
        #expect(await broker.post("/v1/signin/anonymous", [:]).status == 201)
        #expect(await Self.accounts(broker).count == 3)
    }

    // MARK: Upgrades

    @Test func aLinkUpgradesTheGuestInPlaceKeepingUidSessionsAndClaims() async throws {
        let broker = try await Self.start()
        let guest = await broker.post("/v1/signin/anonymous", [:])
        let uid = Self.uid(guest)
        _ = try await broker.store.update(id: uid) { $0.customClaims = #"{"plan":"cart"}"# }
        let upgraded = await broker.post(
            "/v1/me/identities/google", try Self.googleToken(broker, sub: "g-guest", email: "guest@example.com"),
            headers: Self.bearer(guest))
        #expect(upgraded.status == 200)
        #expect(upgraded.json?["isNewUser"] == false)
        #expect(upgraded.json?["user"]?["uid"]?.stringValue == uid.rawValue)
        #expect(upgraded.json?["user"]?["isAnonymous"] == false)
        let claims = try Self.claims(upgraded.json?["idToken"]?.stringValue)
        #expect(claims["sub"]?.stringValue == uid.rawValue)
        #expect(claims["sign_in_provider"] == "google")
        #expect(claims["plan"] == "cart")
        let stored = try #require(await broker.store.account(id: uid))
        #expect(!stored.isAnonymous)
        #expect(stored.email == "guest@example.com" && stored.emailVerified)
        #expect(stored.identities.map(\.subject) == ["g-guest"])
        // Stored with the kind of credential that linked it (it names the identity on the Firebase listener).
        #expect(stored.identities.map(\.kind) == [.idToken])
        #expect(stored.customClaims == #"{"plan":"cart"}"#)
        #expect(await Self.accounts(broker).count == 1)
        // The guest's session goes on; a sign-in with the identity reaches the same uid.
        #expect(await broker.get("/v1/me", headers: Self.bearer(guest)).status == 200)
        let refreshed = await broker.post("/v1/token", ["refreshToken": guest.json?["refreshToken"] ?? .null])
        #expect(refreshed.status == 200)
        let again = await broker.post(
            "/v1/signin/google", try Self.googleToken(broker, sub: "g-guest", email: "guest@example.com"))
        #expect(Self.uid(again) == uid)
        let events = await broker.store.auditEvents(uid: uid, before: nil, limit: 10)
        #expect(events.map(\.action).contains(.link))
    }

    @Test func aSignUpWithTheGuestsTokenUpgradesItWithEmailAndPassword() async throws {
        let broker = try await Self.start()
        let guest = await broker.post("/v1/signin/anonymous", [:])
        let uid = Self.uid(guest)
        let upgraded = await broker.post(
            "/v1/signup", ["email": "Guest@Example.com", "password": "secret-1", "displayName": "G"],
            headers: Self.bearer(guest))
        #expect(upgraded.status == 200)
        #expect(upgraded.json?["isNewUser"] == false)
        #expect(Self.uid(upgraded) == uid)
        #expect(upgraded.json?["user"]?["isAnonymous"] == false)
        #expect(try Self.claims(upgraded.json?["idToken"]?.stringValue)["sign_in_provider"] == "password")
        let stored = try #require(await broker.store.account(id: uid))
        #expect(!stored.isAnonymous && stored.email == "Guest@Example.com" && stored.hasUsablePassword)
        #expect(stored.displayName == "G")
        #expect(await Self.accounts(broker).count == 1)
        let signIn = await broker.post("/v1/signin/password", ["email": "guest@example.com", "password": "secret-1"])
        #expect(signIn.status == 200)
        #expect(Self.uid(signIn) == uid)
        #expect(
            SignInFlowTests.samples(broker, "broker_signups_total")
                == ["{provider=\"password\",outcome=\"upgraded\"}": 1])
    }

    @Test(arguments: [true, false])
    func aSignUpUpgradeWithAnEmailAnyAccountHoldsIsEmailExistsAndLeavesTheGuest(_ verified: Bool) async throws {
        let broker = try await Self.start()
        let holder = await broker.post("/v1/signup", ["email": "taken@example.com", "password": "secret-1"])
        if verified { _ = try await broker.store.update(id: Self.uid(holder)) { $0.emailVerified = true } }
        let guest = await broker.post("/v1/signin/anonymous", [:])
        let refused = await broker.post(
            "/v1/signup", ["email": "TAKEN@example.com", "password": "secret-2"], headers: Self.bearer(guest))
        #expect(refused.status == 409)
        #expect(refused.errorCode == "EMAIL_EXISTS")
        let stored = try #require(await broker.store.account(id: Self.uid(guest)))
        #expect(stored.isAnonymous && stored.email == nil && stored.password?.hash == nil)
        #expect(await Self.accounts(broker).count == 2)
    }

    @Test func anIdentityLinkedToAnotherAccountIsAlreadyLinkedAndLeavesTheGuest() async throws {
        let broker = try await Self.start()
        let token = try Self.googleToken(broker, sub: "g-other", email: "other@example.com")
        let other = await broker.post("/v1/signin/google", token)
        let guest = await broker.post("/v1/signin/anonymous", [:])
        let refused = await broker.post("/v1/me/identities/google", token, headers: Self.bearer(guest))
        #expect(refused.status == 409)
        #expect(refused.errorCode == "IDENTITY_ALREADY_LINKED")
        let stored = try #require(await broker.store.account(id: Self.uid(guest)))
        #expect(stored.isAnonymous && stored.identities.isEmpty && stored.email == nil)
        #expect(await broker.store.account(id: Self.uid(other))?.identities.count == 1)
    }

    @Test func anAppleEmailAnotherAccountHoldsVerifiedIsRefusedAndTheTokenStaysUsable() async throws {
        // Even where a first sign-in would link by verified email, a guest's upgrade never joins another account.
        let broker = try await Self.start(linkByVerifiedEmail: true)
        let owner = await broker.post(
            "/v1/signin/google", try Self.googleToken(broker, sub: "g-owner", email: "owner@example.com"))
        let guest = await broker.post("/v1/signin/anonymous", [:])
        let apple = try Self.appleToken(broker, sub: "a-owner", email: "owner@example.com")
        let refused = await broker.post("/v1/me/identities/apple", apple, headers: Self.bearer(guest))
        #expect(refused.status == 409)
        #expect(refused.errorCode == "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL")
        #expect(refused.json?["error"]?["existingProviders"] == ["google"])
        let stored = try #require(await broker.store.account(id: Self.uid(guest)))
        #expect(stored.isAnonymous && stored.identities.isEmpty && stored.email == nil)
        // The single-use mark was not spent: the same token signs in to the other account.
        let signIn = await broker.post("/v1/signin/apple", apple)
        #expect(signIn.status == 200)
        #expect(Self.uid(signIn) == Self.uid(owner))
        #expect(await broker.store.account(id: Self.uid(owner))?.identities.count == 2)
    }

    @Test func anAccountHoldingTheEmailUnverifiedKeepsItAndDoesNotStopTheUpgrade() async throws {
        let broker = try await Self.start()
        let squatter = await broker.post("/v1/signup", ["email": "mine@example.com", "password": "secret-1"])
        let guest = await broker.post("/v1/signin/anonymous", [:])
        let upgraded = await broker.post(
            "/v1/me/identities/google", try Self.googleToken(broker, sub: "g-mine", email: "mine@example.com"),
            headers: Self.bearer(guest))
        #expect(upgraded.status == 200)
        #expect(Self.uid(upgraded) == Self.uid(guest))
        let stored = try #require(await broker.store.account(id: Self.uid(guest)))
        #expect(!stored.isAnonymous && stored.email == nil && stored.identities.map(\.subject) == ["g-mine"])
        let held = try #require(await broker.store.account(id: Self.uid(squatter)))
        #expect(held.email == "mine@example.com" && held.hasUsablePassword)
    }

    @Test func twoUpgradesOfOneGuestAtOnceLeaveOneWinnerAndNothingHalfDone() async throws {
        // Two sign-ups with the guest's token: whichever order they run in, only one can upgrade the guest (the
        // other meets an account that is no guest, checked in its transaction). A link after an upgrade is an
        // ordinary link of a signed-in user, so a race of a link against a sign-up has no single outcome.
        let broker = try await Self.start()
        let guest = await broker.post("/v1/signin/anonymous", [:])
        let headers = Self.bearer(guest)
        async let first = broker.post(
            "/v1/signup", ["email": "race1@example.com", "password": "secret-1"], headers: headers)
        async let second = broker.post(
            "/v1/signup", ["email": "race2@example.com", "password": "secret-2"], headers: headers)
        let answers = await [first, second]
        #expect(answers.filter { $0.status == 200 }.count == 1)
        let loser = try #require(answers.first { $0.status != 200 })
        #expect(loser.status == 409)
        #expect(loser.errorCode == "IDENTITY_ALREADY_LINKED")
        let stored = try #require(await broker.store.account(id: Self.uid(guest)))
        #expect(!stored.isAnonymous)
        #expect(["race1@example.com", "race2@example.com"].contains(stored.email ?? ""))
        // Exactly one upgrade's changes: the other address is stored nowhere.
        let other = stored.email == "race1@example.com" ? "race2@example.com" : "race1@example.com"
        #expect(await broker.store.account(email: other) == nil)
        #expect(await Self.accounts(broker).count == 1)
    }

    @Test func aSignUpWithTheTokenOfAnAccountThatIsNoGuestChangesNothing() async throws {
        let broker = try await Self.start()
        let user = await broker.post("/v1/signup", ["email": "u@example.com", "password": "secret-1"])
        let refused = await broker.post(
            "/v1/signup", ["email": "v@example.com", "password": "secret-2"], headers: Self.bearer(user))
        #expect(refused.status == 409)
        #expect(refused.errorCode == "IDENTITY_ALREADY_LINKED")
        #expect(await broker.store.account(id: Self.uid(user))?.email == "u@example.com")
        #expect(await broker.store.account(email: "v@example.com") == nil)
        let unauthenticated = await broker.post(
            "/v1/signup", ["email": "w@example.com", "password": "secret-2"], headers: ["Authorization": "Bearer x"])
        #expect(unauthenticated.status == 401)
        #expect(await broker.store.account(email: "w@example.com") == nil)
    }

    @Test func aLinkToAnAccountThatIsNoGuestStillAnswersTheUser() async throws {
        let broker = try await Self.start()
        let user = await broker.post("/v1/signup", ["email": "u@example.com", "password": "secret-1"])
        let linked = await broker.post(
            "/v1/me/identities/google", try Self.googleToken(broker, sub: "g-u", email: nil), headers: Self.bearer(user)
        )
        #expect(linked.status == 200)
        #expect(linked.json?["uid"]?.stringValue == Self.uid(user).rawValue)
        #expect(linked.json?["isAnonymous"] == false)
        #expect(linked.json?["idToken"] == nil)
    }

    // MARK: The sweep

    @Test func theSweepDeletesGuestsInactiveForDeleteAfterDaysOnlyAndOneInstanceAtATime() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        let idle = await broker.post("/v1/signin/anonymous", [:])
        let active = await broker.post("/v1/signin/anonymous", [:])
        let upgraded = await broker.post("/v1/signin/anonymous", [:])
        _ = await broker.post(
            "/v1/signup", ["email": "kept@example.com", "password": "secret-1"], headers: Self.bearer(upgraded))
        let user = await broker.post("/v1/signup", ["email": "user@example.com", "password": "secret-1"])
        let guests = try #require(broker.services.signIn.guests)
        clock.advance(by: 20 * 86_400)
        #expect(await broker.post("/v1/token", ["refreshToken": active.json?["refreshToken"] ?? .null]).status == 200)
        #expect(try await guests.sweep(holder: "one") == 0)  // nobody inactive for 30 days yet
        clock.advance(by: 11 * 86_400)
        // While another instance holds the lease, this one sweeps nothing.
        let taken = await broker.store.acquireLease(
            GuestService.sweepLease, holder: "one", until: clock.now + 600, now: clock.now)
        #expect(taken)
        #expect(try await guests.sweep(holder: "two") == 0)
        #expect(await broker.store.account(id: Self.uid(idle)) != nil)
        clock.advance(by: 601)
        #expect(try await guests.sweep(holder: "two") == 1)
        #expect(await broker.store.account(id: Self.uid(idle)) == nil)
        #expect(await broker.store.account(id: Self.uid(active))?.isAnonymous == true)
        #expect(await broker.store.account(id: Self.uid(upgraded))?.isAnonymous == false)
        #expect(await broker.store.account(id: Self.uid(user)) != nil)
        let events = await broker.store.auditEvents(uid: Self.uid(idle), before: nil, limit: 10)
        let deletion = try #require(events.first)
        #expect(deletion.action == .delete && deletion.actor == .system && deletion.outcome == "success")
        #expect(events.filter { $0.action == .delete }.count == 1)
        // The deleted guest's session is gone.
        #expect(await broker.get("/v1/me", headers: Self.bearer(idle)).status == 401)
    }

    // MARK: The Firebase-compatible listener

    @Test func theListenersAnonymousSignUpMakesAGuestAndItsSignUpWithIdTokenUpgradesIt() async throws {
        let broker = try await Self.start()
        let guest = await FirebaseClientAPITests.iOS(broker, "signupNewUser", ["returnSecureToken": true])
        #expect(guest.status == 200)
        let localId = try #require(guest.json?["localId"]?.stringValue)
        #expect(guest.json?["email"] == nil)
        #expect(guest.json?["refreshToken"]?.stringValue?.isEmpty == false)
        let idToken = try #require(guest.json?["idToken"]?.stringValue)
        #expect(try Self.claims(idToken)["firebase"]?["sign_in_provider"] == "anonymous")
        #expect(await broker.store.account(id: AccountID(localId))?.isAnonymous == true)
        let info = await FirebaseClientAPITests.iOS(broker, "getAccountInfo", ["idToken": .string(idToken)])
        #expect(info.status == 200)
        let user = try #require(info.json?["users"]?.arrayValue?.first)
        #expect(user["providerUserInfo"] == nil || user["providerUserInfo"] == .array([]))
        let upgraded = await FirebaseClientAPITests.iOS(
            broker, "signupNewUser",
            [
                "idToken": .string(idToken), "email": "fb@example.com", "password": "secret-pass",
                "returnSecureToken": true,
            ])
        #expect(upgraded.status == 200)
        #expect(upgraded.json?["localId"]?.stringValue == localId)
        #expect(upgraded.json?["email"] == "fb@example.com")
        let stored = try #require(await broker.store.account(id: AccountID(localId)))
        #expect(!stored.isAnonymous && stored.email == "fb@example.com" && stored.hasUsablePassword)
        #expect(await Self.accounts(broker).count == 1)
    }

    /// `emailLinkSignin` with a guest's `idToken` upgrades it in place: the address becomes the account's, verified,
    /// the code is used; an address another account holds is `EMAIL_EXISTS`, with the guest unchanged and the code
    /// still usable.
    @Test func theListenersEmailLinkWithAGuestsIdTokenUpgradesIt() async throws {
        let broker = try await Self.start()
        let guest = await FirebaseClientAPITests.iOS(broker, "signupNewUser", ["returnSecureToken": true])
        let localId = AccountID(try #require(guest.json?["localId"]?.stringValue))
        let idToken = try #require(guest.json?["idToken"]?.stringValue)
        try await broker.store.create(
            Account(id: AccountID("holder"), email: "held@example.com", emailVerified: false, createdAt: Date()))
        let held = try await broker.services.actionCodes.issueLink(
            .signIn, email: "held@example.com", continueURL: nil, requestID: "r0")
        let refused = await FirebaseClientAPITests.iOS(
            broker, "emailLinkSignin",
            ["idToken": .string(idToken), "email": "held@example.com", "oobCode": .string(held.oobCode)])
        #expect(refused.status == 400)
        #expect(FirebaseClientAPITests.code(refused) == "EMAIL_EXISTS")
        #expect(await broker.store.account(id: localId)?.isAnonymous == true)
        #expect(await broker.store.account(id: localId)?.email == nil)
        #expect(try await broker.services.actionCodes.inspect(code: held.oobCode).email == "held@example.com")

        let link = try await broker.services.actionCodes.issueLink(
            .signIn, email: "guest-mail@example.com", continueURL: nil, requestID: "r1")
        let upgraded = await FirebaseClientAPITests.iOS(
            broker, "emailLinkSignin",
            ["idToken": .string(idToken), "email": "guest-mail@example.com", "oobCode": .string(link.oobCode)])
        #expect(upgraded.status == 200)
        #expect(upgraded.json?["localId"]?.stringValue == localId.rawValue)
        #expect(upgraded.json?["isNewUser"] == false)
        let stored = try #require(await broker.store.account(id: localId))
        #expect(!stored.isAnonymous && stored.email == "guest-mail@example.com" && stored.emailVerified)
        #expect(await Self.accounts(broker).count == 2)
        // The code is spent: signing in with it again is refused.
        let again = await FirebaseClientAPITests.iOS(
            broker, "emailLinkSignin", ["email": "guest-mail@example.com", "oobCode": .string(link.oobCode)])
        #expect(FirebaseClientAPITests.code(again) == "INVALID_OOB_CODE")
    }

    @Test func theListenersAnonymousSignUpIsNotAllowedWhenGuestsAreDisabled() async throws {
        let broker = try await Self.start(enabled: false)
        let refused = await FirebaseClientAPITests.iOS(broker, "signupNewUser", ["returnSecureToken": true])
        #expect(refused.status == 400)
        #expect(FirebaseClientAPITests.code(refused) == "OPERATION_NOT_ALLOWED")
        #expect(await Self.accounts(broker).isEmpty)
    }

    @Test func aGuestsSessionCountsAsRecentForDeletion() async throws {
        let clock = ManualClock(Date())
        let broker = try await Self.start(clock: clock)
        let guest = await broker.post("/v1/signin/anonymous", [:])
        clock.advance(by: 600)
        let deleted = await broker.request("DELETE", "/v1/me", headers: Self.bearer(guest))
        #expect(deleted.status == 204)
        #expect(await broker.store.account(id: Self.uid(guest)) == nil)
    }

    @Test func theAdminListingFiltersGuests() async throws {
        let broker = try await InProcessBroker.start(adminToken: "admin-secret") { document in
            guard case .object(var members) = document else { return document }
            members["anonymous"] = ["enabled": true]
            return .object(members)
        }
        let guest = await broker.post("/v1/signin/anonymous", [:])
        let user = await broker.post("/v1/signup", ["email": "u@example.com", "password": "secret-1"])
        let admin = ["Authorization": "Bearer admin-secret"]
        let guests = await broker.get("/admin/v1/users?anonymous=true", headers: admin)
        #expect(guests.status == 200)
        #expect(guests.json?["users"]?.arrayValue?.map { $0["uid"] } == [.string(Self.uid(guest).rawValue)])
        #expect(guests.json?["users"]?.arrayValue?.first?["isAnonymous"] == true)
        let others = await broker.get("/admin/v1/users?anonymous=false", headers: admin)
        #expect(others.json?["users"]?.arrayValue?.map { $0["uid"] } == [.string(Self.uid(user).rawValue)])
        let bad = await broker.get("/admin/v1/users?anonymous=yes", headers: admin)
        #expect(bad.status == 400)
        #expect(bad.errorCode == "INVALID_REQUEST")
        let view = await broker.get("/admin/v1/users/\(Self.uid(guest).rawValue)", headers: admin)
        #expect(view.json?["isAnonymous"] == true)
    }
}
