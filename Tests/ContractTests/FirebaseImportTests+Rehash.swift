import BrokerCore
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The first successful password sign-in of an imported user replaces the Firebase hash with Argon2id in the
/// sign-in's own transaction (contract section 8).
extension FirebaseImportTests {
    @Test func theFirstPasswordSignInReplacesAnImportedHashWithArgon2id() async throws {
        try await withBroker { broker in
            let directory = try ProcessTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let export = try FirebaseExport(
                contentsOf: URL(fileURLWithPath: try Self.write([Self.readmeUser], in: directory)))
            let hash = try FirebaseHashOptions(
                hashAlgo: "SCRYPT", hashKey: Self.hashFlags[3], saltSeparator: "Bw==", rounds: "8", memCost: "14")
            let importer = FirebaseImporter(
                store: AccountTransfer(store: broker.store),
                options: try FirebaseImportOptions(hash: hash, providers: [:]),
                clock: SystemClock())
            #expect(try await importer.run(export).imported == 1)
            let uid = AccountID("kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
            let imported = try #require(try await broker.store.account(id: uid))
            #expect(imported.password?.hash.hasPrefix("$firebase-scrypt$") == true)

            // A wrong password changes nothing: the Firebase hash stays, no session is made.
            let wrong = try await broker.post(
                "/v1/signin/password", ["email": "user1@test.com", "password": "user1passworD"])
            #expect(wrong.status == 400)
            #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await broker.store.account(id: uid) == imported)

            let first = try await broker.post(
                "/v1/signin/password", ["email": "user1@test.com", "password": "user1password"])
            #expect(first.status == 200)
            #expect(first.json?["user"]?["uid"] == "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
            let upgraded = try #require(try await broker.store.account(id: uid))
            let argon2 = try #require(upgraded.password?.hash)
            #expect(argon2.hasPrefix("$argon2id$v=19$"))
            #expect(upgraded.origin == .import && upgraded.imported == imported.imported)
            // The session of that sign-in was stored with the new hash: its refresh token works.
            let refreshToken = try #require(first.json?["refreshToken"]?.stringValue)
            #expect(try await broker.post("/v1/token", ["refreshToken": .string(refreshToken)]).status == 200)

            // The same password keeps working against the Argon2id hash, which is not replaced again.
            let second = try await broker.post(
                "/v1/signin/password", ["email": "user1@test.com", "password": "user1password"])
            #expect(second.status == 200)
            #expect(second.json?["user"]?["uid"] == "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
            #expect(try await broker.store.account(id: uid)?.password?.hash == argon2)
            let wrongAfter = try await broker.post(
                "/v1/signin/password", ["email": "user1@test.com", "password": "user1passworD"])
            #expect(wrongAfter.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await broker.store.account(id: uid)?.password?.hash == argon2)
        }
    }
}
