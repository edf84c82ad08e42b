import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// `broker admin export` then `broker admin import firebase` into a fresh database (contract section 8): the
/// same users, uids, identities, origins and claims, and both kinds of password (an imported Firebase scrypt
/// hash not yet upgraded, and one upgraded to Argon2id by a sign-in) still sign in. On SQLite, and on
/// PostgreSQL under `scripts/with-postgres.sh`.
@Suite(.serialized) struct FirebaseRoundTripTests {
    enum Backend: String, CaseIterable, Sendable {
        case sqlite, postgres
        static var enabled: [Backend] { PostgresTestEnvironment.url == nil ? [.sqlite] : [.sqlite, .postgres] }
    }

    /// A database of `backend`: a file in `directory`, or a fresh schema (dropped by the caller).
    static func database(
        _ backend: Backend, in directory: URL, name: String
    ) async throws -> (String, PostgresContractSchema?) {
        switch backend {
        case .sqlite: return (directory.appendingPathComponent("\(name).sqlite").path, nil)
        case .postgres:
            let schema = try await PostgresContractSchema.create(in: try #require(PostgresTestEnvironment.url))
            return (schema.url, schema)
        }
    }

    /// Runs `body` on a store opened on `location` (SQLite path or PostgreSQL URL), closing it afterwards.
    static func withStore<T>(_ location: String, _ body: (SQLBrokerStore) async throws -> T) async throws -> T {
        let database: any SQLDatabase =
            location.hasPrefix("postgres") ? try PostgresDatabase(url: location) : try SQLiteDatabase(path: location)
        do {
            let result = try await body(try await SQLBrokerStore(database: database))
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    /// A Firebase scrypt hash of `password` with the README's project parameters (independent of the broker's
    /// verifier: OpenSSL's scrypt and AES-CTR called directly).
    static func scryptHash(_ password: String, salt: [UInt8]) throws -> String {
        let key = try #require(FirebaseBase64.decode(FirebaseImportTests.hashFlags[3]))
        let derived = try Scrypt.derive(
            password: Array(password.utf8), salt: salt + [7], n: 1 << 14, r: 8, p: 1, length: 32)
        return Base64.encode(try AESCTR.aes256(key: derived, iv: [UInt8](repeating: 0, count: 16), data: key))
    }

    static func fixture() throws -> [String] {
        let janeSalt: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
        let jane = #"""
            {"localId": "firebase-uid-of-jane", "email": "jane@example.com", "emailVerified": true,
             "passwordHash": "\#(try scryptHash("jane-password", salt: janeSalt))", "salt": "\#(Base64.encode(janeSalt))",
             "displayName": "Jane", "photoUrl": "https://photos.example.com/jane.jpg",
             "createdAt": "1508893925000", "lastSignedInAt": "1600000000123", "customAttributes": "{\"tier\": 2}",
             "providerUserInfo": [
               {"providerId": "password", "rawId": "jane@example.com", "email": "jane@example.com"},
               {"providerId": "google.com", "rawId": "g-jane", "email": "jane@example.com"},
               {"providerId": "apple.com", "rawId": "a-jane.0001", "email": "jane@privaterelay.appleid.com"},
               {"providerId": "facebook.com", "rawId": "fb-jane", "email": "jane@fb.example"}]}
            """#
        let readme = FirebaseImportTests.readmeUser.replacingOccurrences(
            of: #""createdAt": "1508893925000","#,
            with: #""createdAt": "1508893925000", "customAttributes": "{\"role\": \"admin\"}","#)
        let disabled = #"""
            {"localId": "apple-only", "disabled": true, "createdAt": "1508893925001",
             "providerUserInfo": [{"providerId": "apple.com", "rawId": "a-only"}]}
            """#
        return [readme, jane, disabled]
    }

    /// What must survive the round trip: everything but the import's own record (when, file, index; the
    /// identities kept under Firebase names are compared apart), and an id-derived credential, never exported.
    static func comparable(_ account: Account) -> Account {
        var account = account
        account.imported = nil
        if account.password?.isDerived == true {
            account.password = nil
        }
        return account
    }

    static func claims(ofIDToken response: InstanceResponse) -> JSONValue? {
        guard let token = response.json?["idToken"]?.stringValue else { return nil }
        let parts = token.split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])) else { return nil }
        return JSONValue.parse(payload)
    }

    @Test(arguments: Backend.enabled)
    func exportThenImportIntoAFreshDatabaseKeepsUsersAndPasswords(_ backend: Backend) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, firstSchema) = try await Self.database(backend, in: directory, name: "first")
        let (second, secondSchema) = try await Self.database(backend, in: directory, name: "second")
        let stubs = try StubProviders()
        try stubs.start(server: MicroHTTPDServer())
        do {
            try await roundTrip(first: first, second: second, directory: directory, stubs: stubs)
        } catch {
            await stubs.stop()
            await firstSchema?.drop()
            await secondSchema?.drop()
            throw error
        }
        await stubs.stop()
        await firstSchema?.drop()
        await secondSchema?.drop()
    }

    private func roundTrip(first: String, second: String, directory: URL, stubs: StubProviders) async throws {
        let config = directory.appendingPathComponent("providers.json").path
        try Data(stubs.brokerConfig().serialized()).write(to: URL(fileURLWithPath: config))
        func run(_ arguments: [String], database: String) async throws -> ChildProcess {
            let child = try ProcessTests.spawn(arguments + ["--database", database, "--config", config])
            _ = try await child.wait()
            return child
        }
        let users = try FirebaseImportTests.write(Self.fixture(), in: directory)

        // 1. The Firebase export into the first database.
        let imported = try await run(
            ["admin", "import", "firebase", users, "--json"] + FirebaseImportTests.hashFlags, database: first)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(JSONValue.parse(Array(imported.stdout.utf8)) == .object(["imported": 3, "unchanged": 0, "failed": []]))

        // A Kakao account made by the email-password workaround: its id-derived credential is never exported.
        let derivedHash = try await MigratingPasswordHasher().hash("4100005151")
        try await Self.withStore(first) { store in
            try await store.create(
                Account(
                    id: AccountID("kakao-made"), email: "lee@example.kr", emailVerified: true,
                    createdAt: Date(timeIntervalSince1970: 1_700_000_000),
                    identities: [
                        Identity(
                            provider: ProviderID("kakao"), subject: "4100005151", email: "lee@example.kr",
                            linkedAt: Date(timeIntervalSince1970: 1_700_000_000))
                    ],
                    password: PasswordCredential(hash: derivedHash, isDerived: true),
                    origin: .provider(ProviderID("kakao"))))
        }

        // 2. A server on it: Jane signs in with her Firebase password (now Argon2id), someone signs up.
        let onFirst = try await BrokerProcess.start(environment: ["BROKER_CONFIG": config, "BROKER_DATABASE": first])
        let jane = try await onFirst.post(
            "/v1/signin/password", ["email": "jane@example.com", "password": "jane-password"])
        #expect(jane.status == 200)
        let signUp = try await onFirst.post("/v1/signup", ["email": "new@example.com", "password": "new-password"])
        #expect(signUp.status == 201)
        let newUid = try #require(signUp.json?["user"]?["uid"]?.stringValue)
        #expect(try await onFirst.stop() == 0)

        let uids = ["kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", "firebase-uid-of-jane", "apple-only", "kakao-made", newUid].map {
            AccountID($0)
        }
        let before = try await Self.withStore(first) { store in
            try await uids.asyncMap { try await store.account(id: $0) }
        }
        #expect(before.allSatisfy { $0 != nil })
        #expect(before[0]?.password?.hash.hasPrefix("$firebase-scrypt$") == true)
        #expect(before[1]?.password?.hash.hasPrefix("$argon2id$") == true)

        // 3. The export: Firebase's shape, with the broker's extension fields.
        let exportPath = directory.appendingPathComponent("backup.json").path
        let exported = try await run(["admin", "export", exportPath, "--json"], database: first)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(
            JSONValue.parse(Array(exported.stdout.utf8))
                == .object(["users": 5, "derivedHashesSkipped": 1, "unreadableHashesSkipped": 0]))
        let attributes = try FileManager.default.attributesOfItem(atPath: exportPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(!FileManager.default.fileExists(atPath: exportPath + ".partial"))
        let file = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: exportPath)))))
        let byUid = Dictionary(
            uniqueKeysWithValues: try #require(file["users"]?.arrayValue).map { ($0["localId"]?.stringValue ?? "", $0) }
        )
        #expect(byUid.count == 5)
        let readme = try #require(byUid["kYi4EvWQlQTKSfnJ3dRSP6IH3ed2"])
        #expect(
            readme["passwordHash"]
                == "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")
        #expect(readme["salt"] == "42xEC+ixf3L2lw==")
        #expect(readme["brokerHashConfig"]?["hashAlgo"] == "SCRYPT")
        #expect(readme["brokerHashConfig"]?["rounds"] == 8 && readme["brokerHashConfig"]?["memCost"] == 14)
        #expect(readme["brokerOrigin"] == "import")
        #expect(
            readme["customAttributes"]?.stringValue.flatMap { JSONValue.parse(Array($0.utf8)) } == ["role": "admin"])
        let janeOut = try #require(byUid["firebase-uid-of-jane"])
        let phc = janeOut["passwordHash"]?.stringValue.flatMap(Base64.decode).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(phc == before[1]?.password?.hash)
        #expect(janeOut["salt"] == nil && janeOut["brokerHashConfig"] == nil)
        let providerIds = janeOut["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
        #expect(providerIds.map(Set.init) == ["password", "google.com", "apple.com", "facebook.com"])
        #expect(byUid["kakao-made"]?["passwordHash"] == nil)
        #expect(byUid["kakao-made"]?["brokerOrigin"] == "kakao")
        #expect(byUid[newUid]?["brokerOrigin"] == "signup")
        let text = try String(contentsOfFile: exportPath, encoding: .utf8)
        #expect(
            !text.contains(Base64.encode(Array(derivedHash.utf8)))
                && !text.contains("argon2id$v=19$m=19456,t=2,p=1$" + derivedHash.split(separator: "$")[3]))

        // 4. Into a fresh database, without hash flags.
        let reimported = try await run(["admin", "import", "firebase", exportPath, "--json"], database: second)
        #expect(reimported.status == 0, "\(reimported.stderr)")
        #expect(
            JSONValue.parse(Array(reimported.stdout.utf8)) == .object(["imported": 5, "unchanged": 0, "failed": []]))
        let after = try await Self.withStore(second) { store in
            try await uids.asyncMap { try await store.account(id: $0) }
        }
        #expect(after.map { $0.map(Self.comparable) } == before.map { $0.map(Self.comparable) })
        #expect(after.map { $0?.imported?.otherIdentities } == before.map { $0?.imported?.otherIdentities ?? [] })
        #expect(after[1]?.imported?.otherIdentities.map(\.provider.rawValue) == ["facebook.com"])
        #expect(after[3]?.password?.hash == nil && after[3]?.origin == AccountOrigin(rawValue: "kakao"))
        #expect(after.allSatisfy { $0?.imported?.file == "backup.json" })

        // 5. Both kinds of password work on the new database; the Firebase one is upgraded there in turn.
        let onSecond = try await BrokerProcess.start(environment: ["BROKER_CONFIG": config, "BROKER_DATABASE": second])
        let scrypt = try await onSecond.post(
            "/v1/signin/password", ["email": "user1@test.com", "password": "user1password"])
        #expect(scrypt.status == 200)
        #expect(scrypt.json?["user"]?["uid"] == "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
        #expect(Self.claims(ofIDToken: scrypt)?["role"] == "admin")
        let argon = try await onSecond.post(
            "/v1/signin/password", ["email": "jane@example.com", "password": "jane-password"])
        #expect(argon.status == 200)
        #expect(argon.json?["user"]?["uid"] == "firebase-uid-of-jane")
        #expect(Self.claims(ofIDToken: argon)?["tier"] == 2)
        let wrong = try await onSecond.post(
            "/v1/signin/password", ["email": "jane@example.com", "password": "jane-passworD"])
        #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS")
        let signedUp = try await onSecond.post(
            "/v1/signup", ["email": "new@example.com", "password": "other-password"])
        #expect(signedUp.errorCode == "EMAIL_EXISTS")
        #expect(
            try await onSecond.post("/v1/signin/password", ["email": "new@example.com", "password": "new-password"])
                .status == 200)
        let google = try await onSecond.post(
            "/v1/signin/google",
            [
                "idToken": .string(
                    try stubs.idToken(
                        "google", claims: ["sub": "g-jane", "email": "jane@example.com", "email_verified": true]))
            ])
        #expect(google.status == 200)
        #expect(google.json?["isNewUser"] == false)
        #expect(google.json?["user"]?["uid"] == "firebase-uid-of-jane")
        let disabled = try await onSecond.post(
            "/v1/signin/apple",
            [
                "identityToken": .string(
                    try stubs.idToken(
                        "apple", claims: ["sub": "a-only", "nonce": .string(TestTokens.hashedNonce("n-1"))])),
                "rawNonce": "n-1",
            ])
        #expect(disabled.errorCode == "USER_DISABLED")
        #expect(try await onSecond.stop() == 0)
        let upgraded = try await Self.withStore(second) { try await $0.account(id: uids[0]) }
        #expect(upgraded?.password?.hash.hasPrefix("$argon2id$") == true)
        #expect(upgraded?.origin == .import)
    }
}

extension Array {
    /// `transform` of each element in order, awaited one after the other.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
