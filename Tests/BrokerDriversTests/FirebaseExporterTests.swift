import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// `broker admin export`'s writer against every store backend: page by page, every account once, and each
/// kind of stored hash written so that the import reads it back to the same stored form without flags.
@Suite struct FirebaseExporterTests {
    /// Exports `store` into memory, returning the parsed file, the report and how many pieces were written.
    static func export(
        _ store: any BrokerStore, names: [ProviderID: String] = [:]
    ) async throws -> (JSONValue, FirebaseExporter.Report, Int) {
        var bytes: [UInt8] = []
        var pieces = 0
        let report = try await FirebaseExporter(store: AccountTransfer(store: store), firebaseNames: names).export(to: {
            piece in
            bytes += piece
            pieces += 1
        })
        return (try #require(JSONValue.parse(bytes)), report, pieces)
    }

    @Test(arguments: StoreBackend.enabled)
    func everyAccountIsWrittenOnceAcrossPages(backend: StoreBackend) async throws {
        try await withStore(backend) { fixture in
            let total = FirebaseExporter.pageSize * 2 + 3
            // Half of them share a creation time, so the pages' (createdAt, uid) order is what keeps each once.
            for index in 0..<total {
                try await fixture.store.create(
                    Account(
                        id: AccountID(String(format: "u%05d", index)),
                        createdAt: Date(timeIntervalSince1970: Double(1_700_000_000 + index % 2))))
            }
            let (file, report, pieces) = try await Self.export(fixture.store)
            #expect(report == FirebaseExporter.Report(users: total))
            #expect(pieces == total + 2)  // the opening, one per user, the closing: never the whole file at once
            let uids = try #require(file["users"]?.arrayValue).compactMap { $0["localId"]?.stringValue }
            #expect(uids.count == total)
            #expect(Set(uids).count == total)
        }
    }

    @Test func anEmptyStoreExportsAnEmptyUsersArray() async throws {
        let (file, report, _) = try await Self.export(MemoryBrokerStore(clock: ManualClock()))
        #expect(file == ["users": []])
        #expect(report.users == 0)
    }

    /// Each algorithm's hash, exported with its parameters and imported again without flags, is stored the same.
    @Test(arguments: [
        "$firebase-scrypt$r=8,m=14,k=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA,s=Bw$42xEC+ixf3L2lw$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ",
        "$firebase-scrypt$r=8,m=14,k=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA,s=$42xEC+ixf3L2lw$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ",
        "$standard-scrypt$n=16384,r=8,p=1,s=Bw$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA",
        "$pbkdf2-sha256$i=310000,s=$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
        "$hmac-sha256$k=a2V5,o=password-first,s=Bw$c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
        "$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
        "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
    ])
    func eachHashKindIsReadBackWithoutFlags(_ stored: String) async throws {
        // The fixture strings are valid stored forms: the importer's own parser accepts them.
        if !stored.hasPrefix("$argon2id$") { #expect(try ImportedPasswordHash(encoded: stored).encoded == stored) }
        let source = MemoryBrokerStore(clock: ManualClock())
        let account = Account(
            id: AccountID("u1"), email: "u1@example.com", createdAt: Date(timeIntervalSince1970: 1_600_000_000),
            password: .chosen(stored), origin: .signup)
        try await source.create(account)
        let (file, _, _) = try await Self.export(source)
        let user = try #require(file["users"]?.arrayValue?.first)
        #expect(user["brokerOrigin"] == "signup")
        #expect((user["brokerHashConfig"] == nil) == stored.hasPrefix("$argon2id$"))

        let target = MemoryBrokerStore(clock: ManualClock())
        let importer = FirebaseImporter(
            store: AccountTransfer(store: target), options: try FirebaseImportOptions(hash: nil), clock: ManualClock(),
            source: "backup.json")
        let report = try await importer.run(try FirebaseExport(data: Data(file.serialized())))
        #expect(report == FirebaseImporter.Report(imported: 1))
        let imported = try #require(await target.account(id: account.id))
        #expect(imported.password?.hash == stored)
        #expect(imported.origin == .signup)
        #expect(imported.imported?.file == "backup.json")
    }

    @Test func derivedAndUnreadableHashesAreLeftOutAndCounted() async throws {
        let store = MemoryBrokerStore(clock: ManualClock())
        let created = Date(timeIntervalSince1970: 1_600_000_000)
        try await store.create(
            Account(
                id: AccountID("kakao-made"), email: "k@example.kr", createdAt: created,
                identities: [
                    Identity(provider: ProviderID("kakao"), subject: "4100005151", email: nil, linkedAt: created)
                ],
                password: PasswordCredential(
                    hash: "$argon2id$v=19$m=19456,t=2,p=1$ZGVyaXZlZHNhbHQ$ZGVyaXZlZGhhc2hkZXJpdmVk", isDerived: true)))
        try await store.create(
            Account(id: AccountID("odd"), createdAt: created, password: .chosen("$md5$nothing-we-read")))
        let (file, report, _) = try await Self.export(store, names: [ProviderID("google"): "google.com"])
        #expect(report == FirebaseExporter.Report(users: 2, derivedHashesSkipped: 1, unreadableHashesSkipped: 1))
        let users = try #require(file["users"]?.arrayValue)
        #expect(users.allSatisfy { $0["passwordHash"] == nil && $0["salt"] == nil })
        #expect(!String(decoding: file.serialized(), as: UTF8.self).contains("ZGVyaXZlZGhhc2hkZXJpdmVk"))
        // The Kakao identity is kept, under the broker's provider id (Firebase has no name of its own for it).
        #expect(
            users[0]["providerUserInfo"] == [
                [
                    "providerId": "kakao", "rawId": "4100005151", "brokerProvider": "kakao",
                    "brokerLinkedAt": "1600000000000",
                ]
            ])
    }

    /// The extension fields are checked as the rest of a record is: a bad one refuses that user alone.
    @Test(arguments: [
        (#"{"localId": "a", "brokerOrigin": "Not An Origin"}"#, "INVALID_FIELD: brokerOrigin"),
        (
            #"{"localId": "a", "passwordHash": "aGFzaA", "brokerHashConfig": {"hashAlgo": "ROT13"}}"#,
            "INVALID_FIELD: brokerHashConfig (UNSUPPORTED_HASH_ALGORITHM)"
        ),
        (
            #"{"localId": "a", "passwordHash": "aGFzaA", "brokerHashConfig": {"hashAlgo": "SCRYPT", "rounds": 8, "memCost": 20, "hashKey": "a2V5"}}"#,
            "INVALID_FIELD: brokerHashConfig (HASH_PARAMETER_OUT_OF_RANGE)"
        ),
        (
            #"{"localId": "a", "passwordHash": "aGFzaA", "brokerHashConfig": {"hashAlgo": "SCRYPT", "extra": 1}}"#,
            "INVALID_FIELD: brokerHashConfig (MALFORMED_IMPORTED_HASH)"
        ),
        (
            #"{"localId": "a", "providerUserInfo": [{"providerId": "x", "rawId": "1", "brokerProvider": "UPPER"}]}"#,
            "INVALID_PROVIDER_USER_INFO: providerUserInfo[0].brokerProvider"
        ),
    ])
    func badExtensionFieldsRefuseTheUser(_ record: String, reason: String) async throws {
        let store = MemoryBrokerStore(clock: ManualClock())
        let export = try FirebaseExport(data: Data(("{\"users\": [" + record + "]}").utf8))
        let report = try await FirebaseImporter(
            store: AccountTransfer(store: store), options: try FirebaseImportOptions(hash: nil), clock: ManualClock()
        ).run(export)
        #expect(report.failed.map(\.reason) == [reason])
        #expect(report.imported == 0)
        #expect(await store.account(id: AccountID("a")) == nil)
    }
}
