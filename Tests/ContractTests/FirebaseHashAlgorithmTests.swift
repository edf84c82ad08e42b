import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// All 13 of Firebase's password-hash algorithms (issue 33), imported through `batchCreate` on the compatibility
/// listener and `broker admin import`, then signed in with through both doors: the native
/// `POST /v1/signin/password` and the listener's `accounts:signInWithPassword`. The vectors are made by Python's
/// hashlib, hmac, pyaes and bcrypt (scripts/make-imported-hash-vectors.py), independent of the broker's code.
@Suite struct FirebaseHashAlgorithmTests {
    static let batchCreate = FirebaseEndpoints.identityToolkitPath + "/projects/stub-project/accounts:batchCreate"
    static let signIn = FirebaseEndpoints.identityToolkitPath + "/accounts:signInWithPassword?key=k"

    /// A vector's flags as `batchCreate`'s fields (Firebase's names, numbers as numbers).
    static func batchFields(_ vector: ImportedHashVector) throws -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        let names = [
            "hashAlgo": "hashAlgorithm", "hashKey": "signerKey", "saltSeparator": "saltSeparator",
            "memCost": "memoryCost",
        ]
        for case let (flag, value?) in vector.flags {
            switch flag {
            case "rounds", "memCost", "parallelization", "blockSize", "dkLen":
                fields[names[flag] ?? flag] = .int(try #require(Int64(value)))
            case "hashInputOrder":
                fields["passwordHashOrder"] = .string(value == "SALT_FIRST" ? "SALT_AND_PASSWORD" : "PASSWORD_AND_SALT")
            default:
                fields[try #require(names[flag])] = .string(value)
            }
        }
        return fields
    }

    /// Whether the account's stored hash is still the imported one.
    static func stillImported(_ broker: BrokerHarness, _ uid: String) async throws -> Bool {
        let account = try await broker.store.account(id: AccountID(uid))
        return account?.password.map { ImportedPasswordHash.isImported($0.hash) } == true
    }

    @Test func everyAlgorithmSignsInWithTheRightPasswordAndRefusesAWrongOneThroughBothDoors() async throws {
        #expect(Set(importedHashVectors.compactMap { $0.flags["hashAlgo"] ?? nil }.map { $0.uppercased() }).count == 13)
        try await FirebaseListenerTests.withFirebase { broker, _ in
            for (index, vector) in importedHashVectors.enumerated() {
                let users: [JSONValue] = ["native", "listener"].map { door in
                    [
                        "localId": .string("\(door)-\(index)"), "email": .string("\(door)-\(index)@example.com"),
                        "passwordHash": .string(vector.passwordHash), "salt": .string(vector.salt),
                    ]
                }
                var body = try Self.batchFields(vector)
                body["users"] = .array(users)
                let created = try await broker.firebase(
                    "POST", Self.batchCreate, json: .object(body), headers: ["Authorization": "Bearer owner"])
                #expect(created.status == 200, "\(vector.name)")
                #expect(
                    created.json?["error"]?.arrayValue?.isEmpty == true,
                    "\(vector.name): \(String(decoding: created.body, as: UTF8.self))")

                // The native door: a wrong password is refused and changes nothing, the right one signs in.
                let email = JSONValue.string("native-\(index)@example.com")
                let wrong = try await broker.post(
                    "/v1/signin/password", ["email": email, "password": .string(vector.password + "x")])
                #expect(wrong.status == 400, "\(vector.name)")
                #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS", "\(vector.name)")
                #expect(try await Self.stillImported(broker, "native-\(index)"), "\(vector.name)")
                let right = try await broker.post(
                    "/v1/signin/password", ["email": email, "password": .string(vector.password)])
                #expect(right.status == 200, "\(vector.name)")
                #expect(right.json?["user"]?["uid"]?.stringValue == "native-\(index)", "\(vector.name)")
                // The first sign-in replaced the imported hash with the broker's own.
                #expect(try await Self.stillImported(broker, "native-\(index)") == false, "\(vector.name)")

                // The listener's door, the same.
                let listenerEmail = JSONValue.string("listener-\(index)@example.com")
                let refused = try await broker.firebase(
                    "POST", Self.signIn,
                    json: ["email": listenerEmail, "password": .string("w" + vector.password)])
                #expect(refused.status == 400, "\(vector.name)")
                #expect(FirebaseListenerTests.code(refused) == "INVALID_LOGIN_CREDENTIALS", "\(vector.name)")
                #expect(try await Self.stillImported(broker, "listener-\(index)"), "\(vector.name)")
                let signedIn = try await broker.firebase(
                    "POST", Self.signIn,
                    json: ["email": listenerEmail, "password": .string(vector.password), "returnSecureToken": true])
                #expect(signedIn.status == 200, "\(vector.name)")
                #expect(signedIn.json?["localId"]?.stringValue == "listener-\(index)", "\(vector.name)")
                #expect(try await Self.stillImported(broker, "listener-\(index)") == false, "\(vector.name)")
            }
        }
    }

    /// `broker admin import` takes the new algorithms' flags too; a hash that its algorithm cannot produce refuses
    /// that user alone (exit 1), and flags beyond Firebase's bounds refuse the file (exit 2, nothing written).
    @Test func theImportCommandTakesTheNewAlgorithms() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("b.sqlite").path
        let vectors = importedHashVectors.filter {
            ["MD5", "HMAC_SHA512", "PBKDF_SHA1"].contains($0.flags["hashAlgo"])
        }
        #expect(vectors.count >= 3)
        for (index, vector) in vectors.enumerated() {
            let user =
                #"{"localId": "cli-\#(index)", "email": "cli-\#(index)@example.com", "#
                + #""passwordHash": "\#(vector.passwordHash)", "salt": "\#(vector.salt)"}"#
            let short = #"{"localId": "short-\#(index)", "passwordHash": "AAAA", "salt": "\#(vector.salt)"}"#
            let file = try FirebaseImportTests.write([user, short], in: directory, name: "users-\(index).json")
            let flags = vector.flags.sorted { $0.key < $1.key }.flatMap { flag, value -> [String] in
                guard let value else { return [] }
                return ["--" + flag.replacing(/[A-Z]/) { "-" + $0.output.lowercased() }, value]
            }
            let (status, _, _) = try await FirebaseImportTests.runImport([file] + flags, database: database)
            #expect(status == 1, "\(vector.name)")
        }
        let sqlite = try SQLiteDatabase(path: database)
        let store = try await SQLBrokerStore(database: sqlite)
        let hasher = MigratingPasswordHasher()
        for (index, vector) in vectors.enumerated() {
            let stored = try #require(try await store.account(id: AccountID("cli-\(index)"))?.password?.hash)
            #expect(ImportedPasswordHash.isImported(stored), "\(vector.name)")
            #expect(try await hasher.verify(vector.password, against: stored), "\(vector.name)")
            #expect(try await hasher.verify(vector.password + "x", against: stored) == false, "\(vector.name)")
            #expect(try await store.account(id: AccountID("short-\(index)")) == nil, "\(vector.name)")
        }
        await sqlite.close()

        let file = try FirebaseImportTests.write([#"{"localId": "over"}"#], in: directory, name: "over.json")
        let (over, _, overErr) = try await FirebaseImportTests.runImport(
            [file, "--hash-algo", "SHA256", "--rounds", "8193"], database: database)
        #expect(over == 2)
        #expect(overErr.contains("HASH_PARAMETER_OUT_OF_RANGE") || overErr.contains("--rounds"))
        let reopened = try SQLiteDatabase(path: database)
        #expect(try await SQLBrokerStore(database: reopened).account(id: AccountID("over")) == nil)
        await reopened.close()
    }
}
