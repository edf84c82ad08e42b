import BrokerCore
import BrokerFirebase
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// The import against every store backend: what is written, what is refused (and not written), idempotence.
@Suite struct FirebaseImporterTests {
    static let readmeUser = #"""
        {"localId": "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", "email": "user1@test.com",
         "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
         "salt": "42xEC+ixf3L2lw==", "createdAt": "1508893925000",
         "providerUserInfo": [{"providerId": "password", "rawId": "user1@test.com"}]}
        """#
    static let googleUser = #"""
        {"localId": "jane", "email": "Jane.Doe@Example.com", "emailVerified": true, "createdAt": 1600000000000,
         "customAttributes": "{\"role\":\"admin\"}",
         "providerUserInfo": [{"providerId": "google.com", "rawId": "g-1"}, {"providerId": "apple.com", "rawId": "a-1"},
                              {"providerId": "facebook.com", "rawId": "f-1"}]}
        """#
    static let kakaoUser = #"{"localId": "kakao:1234567890", "email": "k@example.co.kr"}"#

    static func export(_ users: [String]) throws -> FirebaseExport {
        try FirebaseExport(data: Data(("{\"users\": [\n" + users.joined(separator: ",\n") + "\n]}").utf8))
    }

    static func importer(_ store: any BrokerStore, clock: any Clock, hash: Bool = true) throws -> FirebaseImporter {
        try importer(AccountTransfer(store: store), clock: clock, hash: hash)
    }

    static func importer(_ store: AccountTransfer, clock: any Clock, hash: Bool = true) throws -> FirebaseImporter {
        let hashOptions = hash ? try MigratingPasswordHasherTests.readmeOptions() : nil
        return FirebaseImporter(
            store: store, options: try FirebaseImportOptions(hash: hashOptions, providers: ["google.com": ProviderID("google"), "apple.com": ProviderID("apple")], linkUIDPrefix: ["kakao:=kakao"]),
            clock: clock, source: "users.json")
    }

    @Test(arguments: StoreBackend.enabled)
    func importsUsersThenLeavesThemUnchanged(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let export = try Self.export([Self.readmeUser, Self.googleUser, Self.kakaoUser])
            let importer = try Self.importer(store, clock: fixture.clock)
            let first = try await importer.run(export)
            #expect(first == FirebaseImporter.Report(imported: 3, unchanged: 0, failed: []))
            #expect(first.exitStatus == 0)

            let password = try #require(try await store.account(id: AccountID("kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")))
            let hasher = MigratingPasswordHasher(argon2: Argon2PasswordHasher(workers: 1))
            #expect(try await hasher.verify("user1password", against: try #require(password.password?.hash)))
            #expect(password.createdAt == Date(timeIntervalSince1970: 1_508_893_925))

            let jane = try #require(try await store.account(email: "jane.doe@EXAMPLE.com"))
            #expect(jane.id == AccountID("jane"))
            #expect(Set(jane.identities.map(\.provider)) == [ProviderID("google"), ProviderID("apple")])  // facebook.com is not an identity
            #expect(try await store.account(provider: ProviderID("google"), subject: "g-1")?.id == AccountID("jane"))
            #expect(jane.customClaims == #"{"role":"admin"}"#)
            #expect(jane.origin == .import)
            #expect(jane.imported?.file == "users.json")
            #expect(jane.imported?.index == 1)
            #expect(jane.imported?.otherIdentities.map { "\($0.provider) \($0.subject)" } == ["facebook.com f-1"])
            #expect(try await store.account(provider: ProviderID("kakao"), subject: "1234567890")?.id == AccountID("kakao:1234567890"))

            // Run again (an interrupted import is finished the same way): nothing changes.
            let second = try await importer.run(export)
            #expect(second == FirebaseImporter.Report(imported: 0, unchanged: 3, failed: []))
            #expect(try await store.account(id: AccountID("jane")) == jane)
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func refusedUsersAreReportedByIndexAndNotWritten(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let store = fixture.store
            let owner = Account(
                id: AccountID("owner"), email: "taken@example.com", createdAt: fixture.clock.now,
                identities: [Identity(provider: ProviderID("google"), subject: "g-taken", email: nil, linkedAt: fixture.clock.now)])
            try await store.create(owner)
            let export = try Self.export([
                #"{"localId": "fine", "email": "fine@example.com"}"#,
                #"{"localId": "u1", "email": "Taken@Example.COM"}"#,
                #"{"localId": "u2", "providerUserInfo": [{"providerId": "google.com", "rawId": "g-taken"}]}"#,
                #"{"localId": "u3", "email": "not an email"}"#,
                #"{"localId": "fine", "email": "another@example.com"}"#,
                #"{"localId": "u5", "email": "FINE@example.com"}"#,
                #"{"localId": "owner"}"#,
            ])
            let report = try await Self.importer(store, clock: fixture.clock).run(export)
            #expect(report.imported == 1)
            #expect(report.unchanged == 1)
            #expect(report.failed.map(\.index) == [1, 2, 3, 4, 5])
            #expect(report.failed.map { $0.reason.prefix { $0 != ":" } } == [
                "EMAIL_EXISTS", "IDENTITY_EXISTS", "INVALID_EMAIL", "DUPLICATE_UID", "DUPLICATE_EMAIL",
            ])
            #expect(report.failed.map(\.uid) == ["u1", "u2", nil, "fine", "u5"])
            #expect(report.exitStatus == 1)
            for uid in ["u1", "u2", "u3", "u5"] { #expect(try await store.account(id: AccountID(uid)) == nil) }
            #expect(try await store.account(id: AccountID("fine"))?.email == "fine@example.com")
            #expect(try await store.account(id: AccountID("owner")) == owner)
            #expect(report.json["failed"]?.arrayValue?.first == .object([
                "index": 1, "uid": "u1", "reason": "EMAIL_EXISTS: the email belongs to another user",
            ]))
        }
    }

    @Test(arguments: StoreBackend.enabled)
    func aDryRunReportsAndWritesNothing(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let export = try Self.export([Self.readmeUser, Self.googleUser, #"{"localId": ""}"#])
            let calls = ProgressLog()
            let report = try await Self.importer(fixture.store, clock: fixture.clock)
                .run(export, dryRun: true, batchSize: 2, progress: { calls.append($0, $1) })
            #expect(report.imported == 2 && report.unchanged == 0 && report.failed.map(\.index) == [2])
            #expect(try await fixture.store.account(id: AccountID("jane")) == nil)
            #expect(try await fixture.store.account(email: "user1@test.com") == nil)
            #expect(calls.entries == [[2, 3], [3, 3]])
        }
    }

    /// A Firebase hash without `--hash-algo` makes the whole file unusable: nothing is written.
    @Test(arguments: StoreBackend.enabled)
    func hashesWithoutHashFlagsStopTheWholeImport(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let export = try Self.export([Self.googleUser, Self.readmeUser])
            let importer = try Self.importer(fixture.store, clock: fixture.clock, hash: false)
            do {
                _ = try await importer.run(export)
                Issue.record("imported without --hash-algo")
            } catch let error as ImportedHashError {
                #expect(error.code == .missingParameter)
                #expect(error.detail.hasPrefix("user 1: "))
            }
            #expect(try await fixture.store.account(id: AccountID("jane")) == nil)
        }
    }
}

/// The progress callbacks seen, in order.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [[Int]] = []
    func append(_ done: Int, _ total: Int) { lock.withLock { seen.append([done, total]) } }
    var entries: [[Int]] { lock.withLock { seen } }
}
