import BrokerCore
import BrokerHTTP
import BrokerFirebase
import BrokerCrypto
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The Admin SDK's account routes of the Firebase surface (`…/v1/projects/{project}/accounts[:verb]`): the
/// translation of Firebase's requests and responses, its error bodies, and the state after each refused call.
@Suite struct FirebaseAdminRoutesTests {
    static let accounts = FirebaseEndpoints.identityToolkitPath + "/projects/stub-project/accounts"
    static let owner = ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"]

    struct Firebase {
        let broker: InProcessBroker
        let app: BrokerApp

        init(cipher: OutboxCipher? = nil) async throws {
            broker = try await InProcessBroker.start(cipher: cipher)
            let surface = FirebaseSurface(services: broker.services, listener: InProcessBroker.firebaseListener)
            app = BrokerApp(services: broker.services, surfaces: [surface])
        }

        func send(
            _ method: String = "POST", _ path: String, _ body: JSONValue? = nil, query: [String: String] = [:],
            headers: [String: String] = FirebaseAdminRoutesTests.owner
        ) async -> (status: Int, json: JSONValue?) {
            var headers = headers
            if body != nil { headers["Content-Type"] = "application/json" }
            let response = await app.handle(HTTPRequest(
                method: method, path: path, query: query, headers: headers, body: body?.serialized() ?? []))
            return (response.status, JSONValue.parse(response.body))
        }

        func post(_ verb: String, _ body: JSONValue) async -> (status: Int, json: JSONValue?) {
            await send("POST", FirebaseAdminRoutesTests.accounts + verb, body)
        }

        var store: MemoryBrokerStore { broker.store }
    }

    /// Firebase's code: `error.message` up to ` : `.
    static func code(_ json: JSONValue?) -> String? {
        json?["error"]?["message"]?.stringValue.map { String($0.split(separator: " ", maxSplits: 1).first ?? "") }
    }

    @Test func createAnswersTheUidAndLookupAnswersTheAdminRecord() async throws {
        let firebase = try await Firebase()
        let created = await firebase.post("", [
            "localId": "route-1", "email": "r1@example.com", "password": "secret-pw", "phoneNumber": "+15551230001",
            "displayName": "R1", "emailVerified": true,
        ])
        #expect(created.status == 200)
        #expect(created.json?["localId"] == "route-1")
        #expect(created.json?["kind"] == "identitytoolkit#SignupNewUserResponse")
        let lookup = await firebase.post(":lookup", ["phoneNumber": ["+15551230001"], "email": ["R1@example.com"]])
        #expect(lookup.status == 200)
        let users = try #require(lookup.json?["users"]?.arrayValue)
        #expect(users.count == 1)
        #expect(users.first?["localId"] == "route-1")
        #expect(users.first?["phoneNumber"] == "+15551230001")
        #expect(users.first?["emailVerified"] == true)
        // The admin record carries the stored hash, never the placeholder or the password.
        let hash = try #require(users.first?["passwordHash"]?.stringValue)
        #expect(hash != FirebaseUserInfo.redactedPasswordHash)
        let decoded = FirebaseBase64.decode(hash).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(!decoded.isEmpty && !decoded.contains("secret-pw"))
        let providers = users.first?["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
        #expect(providers?.contains("phone") == true && providers?.contains("password") == true)

        let none = await firebase.post(":lookup", ["localId": ["ghost"]])
        #expect(none.status == 200)
        #expect(none.json?["users"] == nil)
    }

    static let createRefusals: [(JSONValue, String)] = [
        (["localId": "taken"], "DUPLICATE_LOCAL_ID"),
        (["localId": "new", "email": "taken@example.com"], "EMAIL_EXISTS"),
        (["localId": "new", "phoneNumber": "+15551230009"], "PHONE_NUMBER_EXISTS"),
        (["localId": "new", "phoneNumber": "555"], "INVALID_PHONE_NUMBER"),
        (["localId": "new", "password": "123"], "WEAK_PASSWORD"),
        (["localId": "new", "email": 42], "INVALID_ARGUMENT"),
    ]

    @Test(arguments: createRefusals)
    func aRefusedCreateIsFirebasesErrorAndStoresNothing(body: JSONValue, code: String) async throws {
        let firebase = try await Firebase()
        #expect(await firebase.post("", ["localId": "taken", "email": "taken@example.com", "phoneNumber": "+15551230009"]).status == 200)
        let refused = await firebase.post("", body)
        #expect(refused.status == 400)
        #expect(Self.code(refused.json) == code)
        #expect(refused.json?["error"]?["code"] == 400)
        #expect(await firebase.store.account(id: AccountID("new")) == nil)
        #expect(await firebase.store.listAccounts(afterUID: nil, limit: 10).count == 1)
    }

    /// The native admin API shows a phone number set through the Firebase surface (`AdminUser.phoneNumber`),
    /// and leaves the field out when there is none.
    @Test func theNativeAdminViewShowsThePhoneNumber() async throws {
        let token = "an-admin-token-of-32-characters!"
        let broker = try await InProcessBroker.start(adminToken: token)
        _ = try await broker.services.admin.create(
            NewAccount(uid: "with-phone", phoneNumber: "+15551230077"), requestID: "r")
        _ = try await broker.services.admin.create(NewAccount(uid: "no-phone"), requestID: "r")
        let bearer = ["Authorization": "Bearer " + token]
        let shown = await broker.get("/admin/v1/users/with-phone", headers: bearer)
        #expect(shown.status == 200)
        #expect(shown.json?["phoneNumber"] == "+15551230077")
        #expect(shown.json?["origin"] == "admin")
        let none = await broker.get("/admin/v1/users/no-phone", headers: bearer)
        #expect(none.status == 200)
        #expect(none.json?["phoneNumber"] == nil)
    }

    /// `Bearer owner` on the client paths without an `idToken` answers as the project paths; with an API key
    /// alone the same body is a client call, which needs an ID token (and changes nothing).
    @Test func theClientPathsAnswerAdminCallsAsTheProjectPaths() async throws {
        let firebase = try await Firebase()
        _ = await firebase.post("", ["localId": "cp", "email": "cp@example.com"])
        let client = FirebaseEndpoints.identityToolkitPath + "/accounts:"
        let lookup = await firebase.send("POST", client + "lookup", ["localId": ["cp"]])
        #expect(lookup.status == 200)
        #expect(lookup.json?["users"]?.arrayValue?.first?["email"] == "cp@example.com")
        let update = await firebase.send("POST", client + "update", ["localId": "cp", "displayName": "CP"])
        #expect(update.json?["displayName"] == "CP")
        let asClient = await firebase.send(
            "POST", client + "delete", ["localId": "cp"], query: ["key": "any"], headers: ["Host": "127.0.0.1:9099"])
        #expect(asClient.status == 400)
        #expect(Self.code(asClient.json) == "MISSING_ID_TOKEN")
        #expect(await firebase.store.account(id: AccountID("cp")) != nil)
        let delete = await firebase.send("POST", client + "delete", ["localId": "cp"])
        #expect(delete.status == 200)
        #expect(await firebase.store.account(id: AccountID("cp")) == nil)
    }

    @Test func withoutBearerOwnerNothingIsDone() async throws {
        let firebase = try await Firebase()
        let refused = await firebase.send("POST", Self.accounts, ["localId": "sneaky"], headers: ["Host": "127.0.0.1:9099"])
        #expect(refused.status == 401)
        #expect(await firebase.store.account(id: AccountID("sneaky")) == nil)
        let wrongProject = await firebase.send(
            "POST", FirebaseEndpoints.identityToolkitPath + "/projects/other-project/accounts", ["localId": "sneaky"])
        #expect(wrongProject.status != 200)
        #expect(await firebase.store.account(id: AccountID("sneaky")) == nil)
    }

    @Test func updateTranslatesDeletionsProvidersAndValidSince() async throws {
        let firebase = try await Firebase()
        _ = await firebase.post("", [
            "localId": "upd", "email": "upd@example.com", "password": "secret-pw", "phoneNumber": "+15551230002",
            "displayName": "Name", "photoUrl": "https://example.com/p.png",
        ])
        let updated = await firebase.post(":update", [
            "localId": "upd", "deleteAttribute": ["DISPLAY_NAME", "PHOTO_URL"], "deleteProvider": ["phone"],
            "disableUser": true, "customAttributes": #"{"tier":"gold"}"#, "validSince": "1800000000",
        ])
        #expect(updated.status == 200)
        #expect(updated.json?["localId"] == "upd")
        #expect(updated.json?["displayName"] == nil)
        let account = try #require(await firebase.store.account(id: AccountID("upd")))
        #expect(account.displayName == nil && account.photoURL == nil && account.phoneNumber == nil)
        #expect(account.disabled)
        #expect(account.customClaims == #"{"tier":"gold"}"#)
        #expect(account.tokensValidAfter == Date(timeIntervalSince1970: 1_800_000_000))
        let looked = await firebase.post(":lookup", ["localId": ["upd"]])
        #expect(looked.json?["users"]?.arrayValue?.first?["validSince"] == "1800000000")
        #expect(looked.json?["users"]?.arrayValue?.first?["customAttributes"] == #"{"tier":"gold"}"#)

        let unknown = await firebase.post(":update", ["localId": "ghost", "disableUser": true])
        #expect(unknown.status == 400)
        #expect(Self.code(unknown.json) == "USER_NOT_FOUND")
        let missing = await firebase.post(":update", ["disableUser": true])
        #expect(Self.code(missing.json) == "MISSING_LOCAL_ID")
        let reserved = await firebase.post(":update", ["localId": "upd", "customAttributes": #"{"iss":"x"}"#, "displayName": "X"])
        #expect(Self.code(reserved.json) == "FORBIDDEN_CLAIM")
        #expect(await firebase.store.account(id: AccountID("upd")) == account)
    }

    @Test func deleteProviderRemovesAnyProviderTheLastOneIncluded() async throws {
        // Firebase's semantics on this listener (contract section 11); the native API keeps LAST_IDENTITY.
        let firebase = try await Firebase()
        _ = await firebase.post("", ["localId": "last", "email": "last@example.com", "password": "secret-pw"])
        let removed = await firebase.post(":update", ["localId": "last", "deleteProvider": ["password"]])
        #expect(removed.status == 200)
        let account = try #require(await firebase.store.account(id: AccountID("last")))
        #expect(!account.hasUsablePassword)
        #expect(account.email == nil)
        #expect(account.identities.isEmpty)
        #expect(await firebase.store.auditEvents(uid: AccountID("last"), before: nil, limit: 10).contains {
            $0.action == .update
        })
    }

    @Test func batchGetPagesInUidOrderWithTheStoredHash() async throws {
        let firebase = try await Firebase()
        for uid in ["c", "a", "b"] { _ = await firebase.post("", ["localId": .string(uid), "password": "secret-pw"]) }
        let first = await firebase.send("GET", Self.accounts + ":batchGet", query: ["maxResults": "2"])
        #expect(first.status == 200)
        #expect(first.json?["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["a", "b"])
        let token = try #require(first.json?["nextPageToken"]?.stringValue)
        let second = await firebase.send("GET", Self.accounts + ":batchGet", query: ["maxResults": "2", "nextPageToken": token])
        #expect(second.json?["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["c"])
        #expect(second.json?["nextPageToken"] == nil)
        let tooMany = await firebase.send("GET", Self.accounts + ":batchGet", query: ["maxResults": "1001"])
        #expect(tooMany.status == 400)
        let badToken = await firebase.send("GET", Self.accounts + ":batchGet", query: ["nextPageToken": "%%%"])
        #expect(Self.code(badToken.json) == "INVALID_PAGE_SELECTION")
    }

    @Test func batchGetAnswersAHashAndASaltForEveryPasswordUser() async throws {
        // Contract section 11: the base64 of the stored PHC string, and the PHC string's salt.
        let firebase = try await Firebase()
        let phc = "$argon2id$v=19$m=65536,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"
        var account = Account(id: AccountID("phc"), email: "phc@example.com", createdAt: Date())
        account.password = .chosen(phc)
        try await firebase.store.create(account)
        _ = await firebase.post("", ["localId": "made", "password": "secret-pw"])
        _ = await firebase.post("", ["localId": "none", "email": "none@example.com"])
        let page = await firebase.send("GET", Self.accounts + ":batchGet", query: ["maxResults": "10"])
        let users = try #require(page.json?["users"]?.arrayValue)
        let byUID = Dictionary(uniqueKeysWithValues: users.map { ($0["localId"]?.stringValue ?? "", $0) })
        #expect(byUID["phc"]?["passwordHash"]?.stringValue == Base64.encode(Array(phc.utf8)))
        #expect(byUID["phc"]?["salt"]?.stringValue == Base64.encode(Array("saltsalt".utf8)))
        #expect(byUID["made"]?["passwordHash"]?.stringValue?.isEmpty == false)
        #expect(byUID["made"]?["salt"] != nil)
        #expect(byUID["none"]?["passwordHash"] == nil)
        #expect(byUID["none"]?["salt"] == nil)
    }

    @Test func batchCreateAnswersPerUserErrors() async throws {
        let firebase = try await Firebase()
        _ = await firebase.post("", ["localId": "present", "email": "present@example.com"])
        let result = await firebase.post(":batchCreate", [
            "users": [
                ["localId": "imp-1", "email": "imp1@example.com", "lastLoginAt": "1700000000000", "createdAt": "1600000000000"],
                ["localId": "present"],
                ["localId": "imp-2", "email": "PRESENT@example.com"],
                ["localId": "imp-3", "email": "not an email"],
                ["localId": "imp-4", "passwordHash": "aGFzaA", "salt": "c2FsdA"],
            ],
            "hashAlgorithm": "SHA256", "rounds": 1,
        ])
        #expect(result.status == 200)
        let errors = try #require(result.json?["error"]?.arrayValue)
        #expect(errors.compactMap { $0["index"]?.intValue } == [1, 2, 3, 4])
        #expect(errors[0]["message"]?.stringValue?.hasPrefix("DUPLICATE_LOCAL_ID") == true)
        #expect(errors[1]["message"]?.stringValue?.hasPrefix("DUPLICATE_EMAIL") == true)
        // SHA256 is verified now (issue 33): a 4-byte hash cannot be a SHA-256 digest, so that user alone is refused.
        #expect(errors[3]["message"]?.stringValue == "INVALID_PASSWORD_HASH : HASH_DOES_NOT_FIT_PARAMETERS")
        let imported = try #require(await firebase.store.account(id: AccountID("imp-1")))
        #expect(imported.createdAt == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(imported.lastSignInAt == Date(timeIntervalSince1970: 1_700_000_000))
        for uid in ["imp-2", "imp-3", "imp-4"] { #expect(await firebase.store.account(id: AccountID(uid)) == nil) }

        let badAlgorithm = await firebase.post(":batchCreate", ["users": [["localId": "imp-9"]], "hashAlgorithm": "ROT13"])
        #expect(Self.code(badAlgorithm.json) == "INVALID_HASH_ALGORITHM")
        #expect(await firebase.store.account(id: AccountID("imp-9")) == nil)

        // A SCRYPT signer key under 16 bytes refuses the whole request, as the import's exit status 2 does.
        let shortKey = await firebase.post(":batchCreate", [
            "users": [["localId": "imp-10", "email": "imp10@example.com", "passwordHash": "BA", "salt": "CQ"]],
            "hashAlgorithm": "SCRYPT", "signerKey": "AQ", "rounds": 8, "memoryCost": 14,
        ])
        #expect(shortKey.status == 400)
        #expect(Self.code(shortKey.json) == "INVALID_HASH_ALGORITHM")
        #expect(await firebase.store.account(id: AccountID("imp-10")) == nil)
    }

    @Test func batchDeleteAndDelete() async throws {
        let firebase = try await Firebase()
        _ = await firebase.post("", ["localId": "on"])
        _ = await firebase.post("", ["localId": "off", "disabled": true])
        let kept = await firebase.post(":batchDelete", ["localIds": ["on", "off", "ghost"]])
        #expect(kept.status == 200)
        #expect(kept.json?["errors"]?.arrayValue?.first?["localId"] == "on")
        #expect(kept.json?["errors"]?.arrayValue?.first?["message"]?.stringValue?.hasPrefix("NOT_DISABLED : ") == true)
        #expect(await firebase.store.account(id: AccountID("off")) == nil)
        let forced = await firebase.post(":batchDelete", ["localIds": ["on"], "force": true])
        #expect(forced.json == [:])
        #expect(await firebase.store.account(id: AccountID("on")) == nil)
        _ = await firebase.post("", ["localId": "one"])
        let deleted = await firebase.post(":delete", ["localId": "one"])
        #expect(deleted.json?["kind"] == "identitytoolkit#DeleteAccountResponse")
        let again = await firebase.post(":delete", ["localId": "one"])
        #expect(Self.code(again.json) == "USER_NOT_FOUND")
        let empty = await firebase.post(":batchDelete", ["localIds": []])
        #expect(Self.code(empty.json) == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
    }

    @Test func queryCountsAndListsInUidOrder() async throws {
        let firebase = try await Firebase()
        for uid in ["q3", "q1", "q2"] { _ = await firebase.post("", ["localId": .string(uid), "email": .string("\(uid)@example.com")]) }
        let all = await firebase.post(":query", ["limit": "2", "offset": "1"])
        #expect(all.json?["recordsCount"] == "3")
        #expect(all.json?["userInfo"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["q2", "q3"])
        let count = await firebase.post(":query", ["returnUserInfo": false])
        #expect(count.json?["recordsCount"] == "3")
        #expect(count.json?["userInfo"] == nil)
        let filtered = await firebase.post(":query", ["expression": [["email": "q2@example.com"], ["userId": "q3"]]])
        #expect(filtered.json?["userInfo"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["q2", "q3"])
        let descending = await firebase.post(":query", ["order": "DESC"])
        #expect(descending.status == 400)
    }
}
