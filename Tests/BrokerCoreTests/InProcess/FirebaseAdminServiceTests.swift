import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// ``AdminService``'s Firebase admin operations (issue 16), below the Firebase surface: each call's effect on the
/// store, and every refusal leaving the store as it was.
@Suite struct FirebaseAdminServiceTests {
    static let request = "req-fbadmin"

    static func expectAdminError(
        _ code: AccountAdminError.Code, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async {
        let error = await #expect(throws: AccountAdminError.self, sourceLocation: sourceLocation) { try await body() }
        #expect(error?.code == code, sourceLocation: sourceLocation)
    }

    static func broker(serviceAccount: Bool = false) async throws -> (InProcessBroker, AdminService) {
        let broker = try await InProcessBroker.start(serviceAccount: serviceAccount)
        return (broker, broker.services.admin)
    }

    // MARK: - Create

    @Test func createKeepsTheUidHashesThePasswordAndAuditsIt() async throws {
        let (broker, admin) = try await Self.broker()
        let created = try await admin.create(
            NewAccount(
                uid: "fb-uid-1", email: "ann@example.com", password: "secret-pw", phoneNumber: "+15551230001",
                displayName: "Ann", photoURL: "https://example.com/a.png", emailVerified: true),
            requestID: Self.request)
        #expect(created.id == AccountID("fb-uid-1"))
        #expect(created.phoneNumber == "+15551230001")
        #expect(created.origin == .admin)
        let hash = try #require(created.password?.hash)
        #expect(!hash.contains("secret-pw"))
        #expect(try await SaltedDigestPasswordHasher().verify("secret-pw", against: hash))
        #expect(await broker.store.account(phoneNumber: "+15551230001")?.id == created.id)
        let events = await broker.store.auditEvents(uid: created.id, before: nil, limit: 5)
        #expect(events.map(\.action.rawValue) == ["create"])
        #expect(events.first?.actor == .admin)

        let generated = try await admin.create(NewAccount(), requestID: Self.request)
        #expect(generated.id.rawValue.count == 28)
        #expect(generated.email == nil && generated.password?.hash == nil)
    }

    @Test(arguments: [
        (NewAccount(uid: "taken"), AccountAdminError.Code.duplicateLocalID),
        (NewAccount(uid: "new", email: "TAKEN@example.com"), .emailExists),
        (NewAccount(uid: "new", phoneNumber: "+15551230001"), .phoneNumberExists),
        (NewAccount(uid: "new", phoneNumber: "5551230001"), .invalidPhoneNumber),
        (NewAccount(uid: "new", phoneNumber: "+0123"), .invalidPhoneNumber),
        (NewAccount(uid: "new", email: "not-an-email"), .invalidEmail),
        (NewAccount(uid: "new", password: "short"), .weakPassword),
        (NewAccount(uid: "new", photoURL: "javascript:alert(1)"), .invalidPhotoURL),
        (NewAccount(uid: String(repeating: "u", count: 129)), .invalidLocalID),
        (NewAccount(uid: ""), .invalidLocalID),
        (NewAccount(uid: "new", displayName: "bad\u{0}name"), .invalidDisplayName),
    ])
    func aRefusedCreateStoresNothing(new: NewAccount, code: AccountAdminError.Code) async throws {
        let (broker, admin) = try await Self.broker()
        _ = try await admin.create(
            NewAccount(uid: "taken", email: "taken@example.com", phoneNumber: "+15551230001"),
            requestID: Self.request)
        await Self.expectAdminError(code) { _ = try await admin.create(new, requestID: Self.request) }
        #expect(await broker.store.account(id: AccountID("new")) == nil)
        #expect(await broker.store.listAccounts(afterUID: nil, limit: 10).map(\.id.rawValue) == ["taken"])
    }

    // MARK: - Update

    @Test func updateChangesAndRemovesFieldsAndAudits() async throws {
        let (broker, admin) = try await Self.broker()
        let uid = AccountID("fb-upd")
        _ = try await admin.create(
            NewAccount(
                uid: uid.rawValue, email: "old@example.com", phoneNumber: "+15551230001", displayName: "Old",
                photoURL: "https://example.com/old.png", emailVerified: true),
            requestID: Self.request)
        let updated = try await admin.update(
            uid,
            AccountPatch(
                email: "new@example.com", displayName: .some(nil), photoURL: .some(nil), phoneNumber: .some(nil),
                disabled: true, customAttributes: #"{"role":"admin","level":3}"#),
            requestID: Self.request)
        #expect(updated.email == "new@example.com")
        #expect(updated.emailVerified == false)  // a new email is not verified
        #expect(updated.displayName == nil && updated.photoURL == nil && updated.phoneNumber == nil)
        #expect(updated.disabled)
        #expect(updated.customClaims.flatMap { JSONValue.parse(Array($0.utf8)) } == ["role": "admin", "level": 3])
        #expect(await broker.store.account(id: uid) == updated)
        #expect(await broker.store.account(phoneNumber: "+15551230001") == nil)
        let actions = await broker.store.auditEvents(uid: uid, before: nil, limit: 10).map(\.action.rawValue)
        #expect(Set(actions) == ["create", "disable", "update"])

        let cleared = try await admin.update(
            uid, AccountPatch(phoneNumber: "+15551230002", customAttributes: "{}"), requestID: Self.request)
        #expect(cleared.customClaims == nil)
        #expect(cleared.phoneNumber == "+15551230002")
    }

    @Test func aNewPasswordIsHashedAndRevokesSessions() async throws {
        let (broker, admin) = try await Self.broker(serviceAccount: true)
        let signUp = await broker.post("/v1/signup", ["email": "pw@example.com", "password": "first-pass"])
        let uid = AccountID(try #require(signUp.json?["user"]?["uid"]?.stringValue))
        let refresh = try #require(signUp.json?["refreshToken"]?.stringValue)
        let updated = try await admin.update(
            uid, AccountPatch(password: "second-pass"), requestID: Self.request)
        let hash = try #require(updated.password?.hash)
        #expect(try await SaltedDigestPasswordHasher().verify("second-pass", against: hash))
        #expect(await broker.post("/v1/token", ["refreshToken": .string(refresh)]).status == 401)
        let revocations = await broker.store.outboxJobs(uid: uid, limit: 10).filter { $0.kind == .firebaseRevoke }
        #expect(revocations.count == 1)
        #expect(await broker.post("/v1/signin/password", ["email": "pw@example.com", "password": "second-pass"]).status == 200)
    }

    @Test func validSinceSetsTheInstantAndRevokesSessions() async throws {
        let (broker, admin) = try await Self.broker()
        let signUp = await broker.post("/v1/signup", ["email": "vs@example.com", "password": "first-pass"])
        let uid = AccountID(try #require(signUp.json?["user"]?["uid"]?.stringValue))
        let refresh = try #require(signUp.json?["refreshToken"]?.stringValue)
        let seconds = Int64(Date().timeIntervalSince1970) - 5
        let updated = try await admin.update(
            uid, AccountPatch(validSince: seconds), requestID: Self.request)
        #expect(updated.tokensValidAfter == Date(timeIntervalSince1970: TimeInterval(seconds)))
        #expect(await broker.store.account(id: uid)?.tokensValidAfter == Date(timeIntervalSince1970: TimeInterval(seconds)))
        #expect(await broker.post("/v1/token", ["refreshToken": .string(refresh)]).status == 401)
        let actions = await broker.store.auditEvents(uid: uid, before: nil, limit: 10).map(\.action.rawValue)
        #expect(actions.contains("revoke_sessions"))
        await Self.expectAdminError(.invalidValidSince) {
            _ = try await admin.update(uid, AccountPatch(validSince: -1), requestID: Self.request)
        }
    }

    @Test func deleteProviderUnlinksButNeverTheLastWayToSignIn() async throws {
        let (broker, admin) = try await Self.broker()
        let google = await broker.post(
            "/v1/signin/google",
            ["idToken": .string(try broker.stubs.idToken(
                "google", claims: ["sub": "g-unlink", "email": "g@example.com", "email_verified": true]))])
        let uid = AccountID(try #require(google.json?["user"]?["uid"]?.stringValue))
        await Self.expectAdminError(.lastIdentity) {
            _ = try await admin.update(
                uid, AccountPatch(unlinking: [ProviderID("google")]), requestID: Self.request)
        }
        #expect(await broker.store.account(id: uid)?.identity(ProviderID("google")) != nil)

        _ = try await admin.update(uid, AccountPatch(password: "a-password"), requestID: Self.request)
        let unlinked = try await admin.update(
            uid, AccountPatch(unlinking: [ProviderID("google")]), requestID: Self.request)
        #expect(unlinked.identities.isEmpty)
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-unlink") == nil)
        #expect(await broker.store.auditEvents(uid: uid, before: nil, limit: 10).contains { $0.action == .unlink })

        let removed = try await admin.update(
            uid, AccountPatch(phoneNumber: "+15551239999"), requestID: Self.request)
        #expect(removed.phoneNumber == "+15551239999")
        await Self.expectAdminError(.lastIdentity) {
            _ = try await admin.update(uid, AccountPatch(removesPassword: true), requestID: Self.request)
        }
        #expect(await broker.store.account(id: uid)?.hasUsablePassword == true)
    }

    @Test(arguments: [
        (AccountPatch(email: "taken@example.com"), AccountAdminError.Code.emailExists),
        (AccountPatch(phoneNumber: "+15551230001"), .phoneNumberExists),
        (AccountPatch(phoneNumber: "+1 555"), .invalidPhoneNumber),
        (AccountPatch(email: "nope"), .invalidEmail),
        (AccountPatch(password: "12345"), .weakPassword),
        (AccountPatch(customAttributes: "[1]"), .invalidClaims),
        (AccountPatch(customAttributes: "{not json"), .invalidClaims),
        (AccountPatch(customAttributes: #"{"sub":"x"}"#), .forbiddenClaim),
        (AccountPatch(customAttributes: #"{"firebase":{}}"#), .forbiddenClaim),
        (AccountPatch(customAttributes: #"{"a":""# + String(repeating: "x", count: 1000) + #""}"#), .claimsTooLarge),
        (AccountPatch(photoURL: "ftp://example.com/x"), .invalidPhotoURL),
    ])
    func aRefusedUpdateChangesNothing(change: AccountPatch, code: AccountAdminError.Code) async throws {
        let (broker, admin) = try await Self.broker()
        _ = try await admin.create(
            NewAccount(uid: "holder", email: "taken@example.com", phoneNumber: "+15551230001"),
            requestID: Self.request)
        let before = try await admin.create(
            NewAccount(uid: "target", email: "target@example.com", displayName: "T"), requestID: Self.request)
        // Every refused change also carries a display name: none of it may land.
        var attempt = change
        attempt.displayName = "Changed"
        let refused = attempt
        await Self.expectAdminError(code) {
            _ = try await admin.update(AccountID("target"), refused, requestID: Self.request)
        }
        #expect(await broker.store.account(id: AccountID("target")) == before)
        #expect(await broker.store.auditEvents(uid: AccountID("target"), before: nil, limit: 5).map(\.action.rawValue) == ["create"])
    }

    @Test func anUnknownUidIsUserNotFound() async throws {
        let (_, admin) = try await Self.broker()
        await Self.expectAdminError(.userNotFound) {
            _ = try await admin.update(AccountID("ghost"), AccountPatch(disabled: true), requestID: Self.request)
        }
        // A deletion is the admin API's own, whose absent account is `AccountError.notFound`; the listener answers
        // it as USER_NOT_FOUND (FirebaseAdminRoutesTests.batchDeleteAndDelete).
        await #expect {
            try await admin.delete(AccountID("ghost"), requestID: Self.request)
        } throws: { ($0 as? AccountError)?.code == .notFound }
    }

    // MARK: - Batch delete, look-ups, pages

    @Test func batchDeleteSkipsUnknownUidsAndLeavesEnabledOnesUnlessForced() async throws {
        let (broker, admin) = try await Self.broker()
        for uid in ["on", "off"] {
            _ = try await admin.create(NewAccount(uid: uid, disabled: uid == "off"), requestID: Self.request)
        }
        let failures = try await admin.delete(
            [AccountID("ghost"), AccountID("on"), AccountID("off")], force: false, requestID: Self.request)
        #expect(failures.map(\.index) == [1])
        #expect(failures.map(\.uid) == [AccountID("on")])
        #expect(await broker.store.account(id: AccountID("on")) != nil)
        #expect(await broker.store.account(id: AccountID("off")) == nil)
        #expect(try await admin.delete([AccountID("on")], force: true, requestID: Self.request).isEmpty)
        #expect(await broker.store.account(id: AccountID("on")) == nil)
        await Self.expectAdminError(.localIDListExceedsLimit) {
            _ = try await admin.delete([], force: true, requestID: Self.request)
        }
        await Self.expectAdminError(.localIDListExceedsLimit) {
            _ = try await admin.delete(
                (0...1000).map { AccountID("u\($0)") }, force: true, requestID: Self.request)
        }
    }

    @Test func lookUpFindsEachAccountOnceByEveryKindOfIdentifier() async throws {
        let (broker, admin) = try await Self.broker()
        _ = try await admin.create(
            NewAccount(uid: "one", email: "one@example.com", phoneNumber: "+15551230001"), requestID: Self.request)
        _ = try await admin.create(NewAccount(uid: "two", email: "two@example.com"), requestID: Self.request)
        let google = await broker.post(
            "/v1/signin/google",
            ["idToken": .string(try broker.stubs.idToken("google", claims: ["sub": "g-look", "email_verified": false]))])
        let third = try #require(google.json?["user"]?["uid"]?.stringValue)
        let found = try await admin.lookUp(
            uids: [AccountID("one"), AccountID("ghost")], emails: ["TWO@example.com", "one@example.com"],
            phoneNumbers: ["+15551230001", "+15550000000"], identities: [(ProviderID("google"), "g-look")])
        #expect(found.map(\.id.rawValue) == ["one", "two", third])
        await Self.expectAdminError(.invalidArgument) {
            _ = try await admin.lookUp(uids: (0...1000).map { AccountID("u\($0)") })
        }
    }

    @Test func pagesFollowUidOrderAndRefuseForeignTokens() async throws {
        let (_, admin) = try await Self.broker()
        for uid in ["c", "a", "e", "b", "d"] {
            _ = try await admin.create(NewAccount(uid: uid), requestID: Self.request)
        }
        var seen: [String] = []
        var after: AccountID?
        var pages = 0
        repeat {
            let (users, next) = try await admin.page(after: after, limit: 2)
            seen += users.map(\.id.rawValue)
            after = next
            pages += 1
        } while after != nil && pages < 10
        #expect(seen == ["a", "b", "c", "d", "e"])
        #expect(pages == 3)
        // A foreign page token is the listener's to refuse (FirebaseAdminRoutesTests: INVALID_PAGE_SELECTION).
        await Self.expectAdminError(.invalidArgument) { _ = try await admin.page(after: nil, limit: 1001) }
        await Self.expectAdminError(.invalidArgument) { _ = try await admin.page(after: nil, limit: 0) }
    }

    // MARK: - Import

    @Test func importWritesNewUsersAndRefusesTakenOnesPerUser() async throws {
        let (broker, admin) = try await Self.broker()
        _ = try await admin.create(
            NewAccount(uid: "present", email: "present@example.com", phoneNumber: "+15551230001"),
            requestID: Self.request)
        let hash = try FirebaseHashOptions(hashAlgo: "BCRYPT")
        let bcrypt = Array("$2b$04$abcdefghijklmnopqrstuuXo0ljd8WKpPw3GZMQUy2e3szA6Io7Hi".utf8)
        let users: [(index: Int, record: FirebaseUserRecord)] = [
            (0, FirebaseUserRecord(localId: "new1", email: "new1@example.com", passwordHash: bcrypt, phoneNumber: "+15551230002")),
            (1, FirebaseUserRecord(localId: "present")),
            (2, FirebaseUserRecord(localId: "clash", email: "PRESENT@example.com")),
            (3, FirebaseUserRecord(localId: "clash2", phoneNumber: "+15551230001")),
            (4, FirebaseUserRecord(localId: "new1")),
            (5, FirebaseUserRecord(
                localId: "g1", providerUserInfo: [FirebaseProviderUserInfo(providerId: "google.com", rawId: "g-imp")])),
        ]
        let options = try FirebaseImportOptions(hash: hash, providers: ["google.com": ProviderID("google")])
        let failures = try await admin.importFirebaseAccounts(users, options: options, requestID: Self.request)
        #expect(failures.map(\.index) == [1, 2, 3, 4])
        #expect(failures.map { $0.message.split(separator: " ").first.map(String.init) ?? "" } == [
            "DUPLICATE_LOCAL_ID", "DUPLICATE_EMAIL", "PHONE_NUMBER_EXISTS", "DUPLICATE_LOCAL_ID",
        ])
        let imported = try #require(await broker.store.account(id: AccountID("new1")))
        #expect(imported.origin == .import)
        #expect(imported.phoneNumber == "+15551230002")
        #expect(imported.password.map { ImportedPasswordHash.isImported($0.hash) } == true)
        #expect(await broker.store.account(provider: ProviderID("google"), subject: "g-imp")?.id == AccountID("g1"))
        for uid in ["clash", "clash2"] { #expect(await broker.store.account(id: AccountID(uid)) == nil) }

        // No algorithm for a hash refuses only the users with a hash (every one of Firebase's is verified now).
        let refusal = try await admin.importFirebaseAccounts(
            [(0, FirebaseUserRecord(localId: "md5", passwordHash: [1, 2, 3])), (1, FirebaseUserRecord(localId: "nohash"))],
            options: try FirebaseImportOptions(hash: nil), requestID: Self.request)
        let missing = "MISSING_HASH_ALGORITHM : passwordHash needs hashAlgorithm"
        #expect(refusal == [AdminService.ImportFailure(index: 0, message: missing)])
        #expect(await broker.store.account(id: AccountID("md5")) == nil)
        #expect(await broker.store.account(id: AccountID("nohash")) != nil)
        await Self.expectAdminError(.maximumUserCountExceeded) {
            _ = try await admin.importFirebaseAccounts([], options: options, requestID: Self.request)
        }
    }
}
