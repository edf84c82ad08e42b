import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Where each account came from (contract section 2): `signup`, the provider of its first sign-in, or
/// `import`; and the admin view of an imported account (when, which file and index, the identities kept
/// under Firebase provider names), which apps never see.
@Suite struct AccountOriginTests {
    static let adminToken = "an-admin-token-of-32-characters!"
    static let admin = ["Authorization": "Bearer " + adminToken]

    static func adminUser(_ broker: BrokerHarness, _ uid: String) async throws -> JSONValue {
        let answer = try await broker.get("/admin/v1/users/\(uid)", headers: admin)
        #expect(answer.status == 200)
        let user = try #require(answer.json)
        let schema = try OpenAPIConformanceTests.schema("GET", "/admin/v1/users/{uid}", 200)
        #expect(try OpenAPIConformanceTests.violations(user, schema) == [])
        return user
    }

    @Test func signUpsAndFirstProviderSignInsRecordTheirOrigin() async throws {
        try await withBroker(adminToken: Self.adminToken) { broker in
            let signUp = try await broker.post("/v1/signup", ["email": "ann@example.com", "password": "ann-secret"])
            #expect(signUp.status == 201)
            let annUid = try #require(signUp.json?["user"]?["uid"]?.stringValue)
            #expect(try await broker.store.account(id: AccountID(annUid))?.origin == .signup)
            let ann = try await Self.adminUser(broker, annUid)
            #expect(ann["origin"] == "signup")
            #expect(ann["import"] == .null)

            let google = try await broker.googleSignIn([
                "sub": "g-bo", "email": "bo@example.com", "email_verified": true,
            ])
            #expect(google.status == 201)
            let boUid = try #require(google.json?["user"]?["uid"]?.stringValue)
            #expect(try await broker.store.account(id: AccountID(boUid))?.origin == .provider(ProviderID("google")))
            #expect(try await Self.adminUser(broker, boUid)["origin"] == "google")

            // The app's answers never carry the origin.
            #expect(google.json?["user"]?["origin"] == nil)
            #expect(signUp.json?["user"]?["origin"] == nil)

            // A later sign-in does not change it.
            let again = try await broker.googleSignIn([
                "sub": "g-bo", "email": "bo@example.com", "email_verified": true,
            ])
            #expect(again.status == 200)
            #expect(try await broker.store.account(id: AccountID(boUid))?.origin == .provider(ProviderID("google")))
        }
    }

    @Test func adminsSeeWhereAnImportedUserCameFromAndAppsDoNot() async throws {
        try await withBroker(adminToken: Self.adminToken) { broker in
            let importedAt = Date(timeIntervalSince1970: 1_790_000_000)
            let linkedAt = Date(timeIntervalSince1970: 1_500_000_000)
            try await broker.store.create(
                Account(
                    id: AccountID("firebase-uid-1"), email: "cy@example.com", emailVerified: true, createdAt: linkedAt,
                    identities: [
                        Identity(
                            provider: ProviderID("google"), subject: "g-cy", email: "cy@example.com", linkedAt: linkedAt
                        )
                    ],
                    origin: .import,
                    imported: AccountImport(
                        importedAt: importedAt, file: "users.json", index: 7,
                        otherIdentities: [
                            Identity(
                                provider: ProviderID("facebook.com"), subject: "fb-cy", email: "cy@fb.example",
                                linkedAt: linkedAt)
                        ])))

            let user = try await Self.adminUser(broker, "firebase-uid-1")
            #expect(user["origin"] == "import")
            #expect(
                user["import"]
                    == .object([
                        "importedAt": .string(importedAt.rfc3339), "file": "users.json", "index": 7,
                        "identities": [
                            [
                                "provider": "facebook.com", "subject": "fb-cy", "email": "cy@fb.example",
                                "linkedAt": .string(linkedAt.rfc3339),
                            ]
                        ],
                    ]))
            #expect(user["identities"]?.arrayValue?.map { $0["provider"] } == ["google"])

            // The user's own answers list only the identities it signs in with.
            let google = try await broker.googleSignIn([
                "sub": "g-cy", "email": "cy@example.com", "email_verified": true,
            ])
            #expect(google.status == 200)
            #expect(google.json?["user"]?["uid"] == "firebase-uid-1")
            #expect(google.json?["user"]?["identities"]?.arrayValue?.map { $0["provider"] } == ["google"])
            #expect(google.json?["user"]?["import"] == nil)
            let token = try #require(google.json?["idToken"]?.stringValue)
            let me = try await broker.get("/v1/me", headers: ["Authorization": "Bearer " + token])
            #expect(me.status == 200)
            #expect(me.json?["identities"]?.arrayValue?.map { $0["provider"] } == ["google"])
            #expect(me.json?["origin"] == nil && me.json?["import"] == nil)

            // Without the admin token: nothing.
            let anonymous = try await broker.get("/admin/v1/users/firebase-uid-1")
            #expect(anonymous.status == 401)
            #expect(anonymous.json?["import"] == nil)
        }
    }
}

extension AccountOriginTests {
    /// `broker admin users show UID` prints where an imported user came from, in text and in JSON.
    @Test func theCLIShowsAnImportedUsersOrigin() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let user =
            #"{"localId": "uid-fb", "email": "fb@example.com", "providerUserInfo": [{"providerId": "facebook.com", "rawId": "fb-1"}]}"#
        let file = try FirebaseImportTests.write([FirebaseImportTests.googleUser, user], in: directory)
        let (status, _, _) = try await FirebaseImportTests.runImport([file], database: database)
        #expect(status == 0)
        let config = directory.appendingPathComponent("providers.json").path

        let json = try ProcessTests.spawn([
            "admin", "users", "show", "uid-fb", "--json", "--database", database, "--config", config,
        ])
        #expect(try await json.wait() == 0)
        let shown = try #require(JSONValue.parse(Array(json.stdout.utf8)))
        #expect(shown["origin"] == "import")
        #expect(shown["import"]?["file"] == "users.json")
        #expect(shown["import"]?["index"] == 1)
        #expect(shown["import"]?["identities"]?.arrayValue?.map { $0["provider"] } == ["facebook.com"])
        #expect(shown["identities"] == [])

        let text = try ProcessTests.spawn([
            "admin", "users", "show", "uid-fb", "--database", database, "--config", config,
        ])
        #expect(try await text.wait() == 0)
        #expect(text.stdout.contains("origin"))
        #expect(text.stdout.contains("from users.json #1"))
        #expect(text.stdout.contains("facebook.com fb-1"))
    }
}
