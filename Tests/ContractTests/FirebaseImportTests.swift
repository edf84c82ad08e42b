import BrokerCore
import BrokerFirebase
import BrokerCrypto
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// `broker admin import firebase` as a user runs it, and imported users signing in to a live broker.
@Suite struct FirebaseImportTests {
    /// The sample project parameters and user of github:firebase/scrypt's README.
    static let hashFlags = [
        "--hash-algo", "SCRYPT",
        "--hash-key", "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
        "--salt-separator", "Bw==", "--rounds", "8", "--mem-cost", "14",
    ]
    static let readmeUser = #"""
        {"localId": "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", "email": "user1@test.com",
         "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
         "salt": "42xEC+ixf3L2lw==", "createdAt": "1508893925000",
         "providerUserInfo": [{"providerId": "password", "rawId": "user1@test.com"}]}
        """#
    static let googleUser = #"""
        {"localId": "firebase-uid-of-jane", "email": "jane@example.com", "emailVerified": true,
         "providerUserInfo": [{"providerId": "google.com", "rawId": "g-jane", "email": "jane@example.com"}]}
        """#

    static func write(_ users: [String], in directory: URL, name: String = "users.json") throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(("{\"users\": [\n" + users.joined(separator: ",\n") + "\n]}\n").utf8).write(to: url)
        return url.path
    }

    /// Runs `broker admin import firebase …` and returns its status, stdout and stderr.
    static func runImport(_ arguments: [String], database: String) async throws -> (Int32, String, String) {
        // The providers' config (its URLs are never called): it says which providers identities map to.
        let config = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("providers.json")
        try Data(StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9").serialized()).write(to: config)
        let child = try ProcessTests.spawn(
            ["admin", "import", "firebase"] + arguments + ["--database", database, "--config", config.path])
        let status = try await child.wait()
        return (status, child.stdout, child.stderr)
    }

    static func accounts(in database: String) async throws -> [AccountID: Account] {
        let sqlite = try SQLiteDatabase(path: database)
        let store = try await SQLBrokerStore(database: sqlite)
        var found: [AccountID: Account] = [:]
        for uid in ["kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", "firebase-uid-of-jane", "other"] {
            if let account = try await store.account(id: AccountID(uid)) { found[account.id] = account }
        }
        await sqlite.close()
        return found
    }

    @Test func theCommandImportsReportsAndIsIdempotent() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let file = try Self.write([Self.readmeUser, Self.googleUser], in: directory)

        let (dryStatus, dryOut, _) = try await Self.runImport([file, "--dry-run", "--json"] + Self.hashFlags, database: database)
        #expect(dryStatus == 0)
        #expect(JSONValue.parse(Array(dryOut.utf8)) == .object(["imported": 2, "unchanged": 0, "failed": []]))
        #expect(!FileManager.default.fileExists(atPath: database))  // a dry run creates no database (issue 36)
        #expect(try await Self.accounts(in: database).isEmpty)

        let (status, out, _) = try await Self.runImport([file, "--json"] + Self.hashFlags, database: database)
        #expect(status == 0)
        #expect(JSONValue.parse(Array(out.utf8)) == .object(["imported": 2, "unchanged": 0, "failed": []]))
        let stored = try await Self.accounts(in: database)
        #expect(stored.count == 2)
        #expect(stored[AccountID("firebase-uid-of-jane")]?.identities.map(\.subject) == ["g-jane"])
        #expect(stored[AccountID("kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")]?.password?.hash.hasPrefix("$firebase-scrypt$r=8,m=14,") == true)

        let (again, againOut, _) = try await Self.runImport([file] + Self.hashFlags, database: database)
        #expect(again == 0)
        #expect(againOut.contains("imported 0, unchanged 2, failed 0"))
        #expect(try await Self.accounts(in: database) == stored)

        // A refused user: exit status 1, reported by index, the others imported.
        let conflicting = try Self.write(
            [#"{"localId": "other", "email": "JANE@example.com"}"#, Self.readmeUser], in: directory, name: "more.json")
        let (refused, refusedOut, _) = try await Self.runImport([conflicting, "--json"] + Self.hashFlags, database: database)
        #expect(refused == 1)
        #expect(JSONValue.parse(Array(refusedOut.utf8)) == .object([
            "imported": 0, "unchanged": 1,
            "failed": [["index": 0, "uid": "other", "reason": "EMAIL_EXISTS: the email belongs to another user"]],
        ]))
        #expect(try await Self.accounts(in: database)[AccountID("other")] == nil)
    }

    @Test func unusableFilesAndFlagsExitWithTwoAndWriteNothing() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let malformed = directory.appendingPathComponent("bad.json")
        try Data("{\"users\": [\n  {\"localId\": \"a\",}\n]}".utf8).write(to: malformed)
        let (badFile, _, badFileErr) = try await Self.runImport([malformed.path] + Self.hashFlags, database: database)
        #expect(badFile == 2)
        #expect(badFileErr.contains("MALFORMED_FILE: line 2, column 19: expected a member name in quotes"))

        let file = try Self.write([Self.googleUser, Self.readmeUser], in: directory)
        let (noFlags, _, noFlagsErr) = try await Self.runImport([file], database: database)
        #expect(noFlags == 2)
        #expect(noFlagsErr.contains("MISSING_HASH_PARAMETER: user 1: "))

        var tooCostly = Self.hashFlags
        tooCostly[tooCostly.count - 1] = "15"
        let (badFlag, _, badFlagErr) = try await Self.runImport([file] + tooCostly, database: database)
        #expect(badFlag == 2)
        #expect(badFlagErr.contains("HASH_PARAMETER_OUT_OF_RANGE"))
        #expect(!badFlagErr.contains("jxspr8Ki0RYyc"))  // never the key
        // A 1-byte signer key: its hash is one byte, which one wrong password in 256 matches.
        var shortKey = Self.hashFlags
        shortKey[3] = "AQ=="
        let (shortKeyStatus, _, shortKeyErr) = try await Self.runImport([file] + shortKey, database: database)
        #expect(shortKeyStatus == 2)
        #expect(shortKeyErr.contains("HASH_PARAMETER_OUT_OF_RANGE"), "\(shortKeyErr)")
        #expect(shortKeyErr.contains("--hash-key length"))
        let (unknown, _, unknownErr) = try await Self.runImport([file, "--map-provider", "oidc.github=github"] + Self.hashFlags, database: database)
        #expect(unknown == 2)
        #expect(unknownErr.contains("github is not a configured provider"))
        #expect(try await Self.accounts(in: database).isEmpty)
    }

    /// Imported users keep their uid when they sign in: with their Firebase password, or with Google.
    @Test func importedUsersSignInToTheirOwnUid() async throws {
        try await withBroker { broker in
            // Of the built-in providers, Firebase names Google and Apple itself; Kakao only through --map-provider.
            #expect(FirebaseImportOptions.wellKnownProviders(broker.services.providers) == [
                "google.com": ProviderID("google"), "apple.com": ProviderID("apple"),
            ])
            let directory = try ProcessTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let export = try FirebaseExport(contentsOf: URL(fileURLWithPath: try Self.write([Self.readmeUser, Self.googleUser], in: directory)))
            let hash = try FirebaseHashOptions(
                hashAlgo: "SCRYPT", hashKey: Self.hashFlags[3], saltSeparator: "Bw==", rounds: "8", memCost: "14")
            let importer = FirebaseImporter(
                store: AccountTransfer(store: broker.store), options: try FirebaseImportOptions(hash: hash, providers: ["google.com": ProviderID("google"), "apple.com": ProviderID("apple")]), clock: SystemClock())
            #expect(try await importer.run(export).imported == 2)

            let wrong = try await broker.post("/v1/signin/password", ["email": "user1@test.com", "password": "user1passworD"])
            #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS")
            let signedIn = try await broker.post("/v1/signin/password", ["email": "user1@test.com", "password": "user1password"])
            #expect(signedIn.status == 200)
            #expect(signedIn.json?["user"]?["uid"] == "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")

            let google = try await broker.googleSignIn(["sub": "g-jane", "email": "jane@example.com", "email_verified": true])
            #expect(google.status == 200)
            #expect(google.json?["isNewUser"] == false)
            #expect(google.json?["user"]?["uid"] == "firebase-uid-of-jane")
        }
    }

    /// The Kakao `email-password` workaround reaches an imported account whose Firebase password is the Kakao
    /// id, in either form the workaround stored.
    @Test(arguments: ["4100005151", "Optional(4100005151)"])
    func theKakaoWorkaroundReachesAnImportedAccount(_ storedPassword: String) async throws {
        try await withBroker(kakaoMapping: "email-password") { broker in
            let key = [UInt8](repeating: 0x5A, count: 64)
            let salt: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
            let derived = try Scrypt.derive(password: Array(storedPassword.utf8), salt: salt + [7], n: 1 << 10, r: 8, p: 1, length: 32)
            let hashBytes = try AESCTR.aes256(key: derived, iv: [UInt8](repeating: 0, count: 16), data: key)
            let user = #"{"localId": "firebase-kakao-uid", "email": "lee@example.kr", "passwordHash": "\#(Base64.encode(hashBytes))", "salt": "\#(Base64.encode(salt))"}"#
            let directory = try ProcessTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let export = try FirebaseExport(contentsOf: URL(fileURLWithPath: try Self.write([user], in: directory)))
            let hash = try FirebaseHashOptions(
                hashAlgo: "SCRYPT", hashKey: Base64.encode(key), saltSeparator: "Bw==", rounds: "8", memCost: "10")
            let importer = FirebaseImporter(store: AccountTransfer(store: broker.store), options: try FirebaseImportOptions(hash: hash, providers: ["google.com": ProviderID("google"), "apple.com": ProviderID("apple")]), clock: SystemClock())
            #expect(try await importer.run(export).imported == 1)

            // Anyone who knows the email and the public id could sign in with it before the owner's Kakao sign-in:
            // an id-shaped password to an imported account without a Kakao identity is refused, and counted.
            let early = try await broker.post("/v1/signin/password", ["email": "lee@example.kr", "password": .string(storedPassword)])
            #expect(early.status == 400)
            #expect(early.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await broker.store.loginFailures(emailKey: "lee@example.kr", since: Date(timeIntervalSince1970: 0)).count == 1)
            // A session someone got that way before this rule (stored directly here) ends with the owner's link.
            let earlyRefresh = "a-refresh-token-from-before"
            try await broker.store.insertRefreshToken(
                RefreshTokenRecord(
                    tokenHash: Hex.encode(Digest.sha256(earlyRefresh)), sessionID: "early-session",
                    accountID: AccountID("firebase-kakao-uid"), signInProvider: "password", createdAt: Date(),
                    expiresAt: Date() + 3600))
            #expect(try await broker.post("/v1/token", ["refreshToken": .string(earlyRefresh)]).status == 200)
            // And a provider the intruder linked then (also stored directly): the owner's link removes it.
            _ = try await broker.store.update(id: AccountID("firebase-kakao-uid")) { account in
                account.identities.append(
                    Identity(provider: ProviderID("google"), subject: "intruder", email: nil, linkedAt: Date() + 1))
            }

            let kakao = try await broker.kakaoSignIn(KakaoStubUser(id: 4_100_005_151, email: "lee@example.kr"))
            #expect(kakao.status == 200)
            #expect(kakao.json?["isNewUser"] == false)
            #expect(kakao.json?["user"]?["uid"] == "firebase-kakao-uid")
            #expect(try await broker.isLinked("kakao", "4100005151"))
            // The id-derived password is deleted and every earlier session ended.
            let account = try #require(try await broker.store.account(id: AccountID("firebase-kakao-uid")))
            #expect(account.password?.hash == nil)
            #expect(account.origin == .import)
            #expect(account.identities.map(\.provider) == [ProviderID("kakao")])
            #expect(try await broker.store.account(provider: ProviderID("google"), subject: "intruder") == nil)
            let events = try await broker.store.auditEvents(uid: AccountID("firebase-kakao-uid"), before: nil, limit: 10)
            #expect(events.map(\.action.rawValue).contains("link"))
            let retired = try await broker.post("/v1/signin/password", ["email": "lee@example.kr", "password": .string(storedPassword)])
            #expect(retired.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await broker.post("/v1/token", ["refreshToken": .string(earlyRefresh)]).errorCode == "INVALID_REFRESH_TOKEN")
            let again = try await broker.kakaoSignIn(KakaoStubUser(id: 4_100_005_151, email: "lee@example.kr"))
            #expect(again.json?["user"]?["uid"] == "firebase-kakao-uid")
        }
    }
}
