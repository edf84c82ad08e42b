import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerFirebase
import BrokerModel
import BrokerStorage
import Foundation
import Testing

/// Second factors through the export and the import (contract sections 8 and 14), on the memory store: written
/// without secrets unless asked, then sealed; restored only with their secrets and the key they were sealed with.
extension FirebaseExporterTests {
    static var sealingKey: OutboxCipher {
        get throws { OutboxCipher(key: try AESGCMKey(bytes: Array(repeating: 3, count: 32))) }
    }

    /// A store with the account `mfa` and one factor sealed with ``sealingKey``, last used at step 42, and two
    /// recovery codes.
    static func storeWithAFactor() async throws -> MemoryBrokerStore {
        let store = MemoryBrokerStore(clock: ManualClock())
        let uid = AccountID("mfa")
        try await store.create(Account(id: uid, email: "mfa@example.com", createdAt: Date(timeIntervalSince1970: 1e9)))
        let sealed = try sealingKey.seal(
            Base32.encode(Array(repeating: 9, count: 20), padded: false), context: "second-factor:mfa:f-1")
        let made = Date(timeIntervalSince1970: 1_700_000_000)
        try await store.insertSecondFactor(
            SecondFactorRecord(id: "f-1", uid: uid, sealedSecret: sealed, createdAt: made), purgeBefore: made - 1)
        #expect(
            await store.confirmSecondFactor(
                id: "f-1", uid: uid, displayName: "Phone", step: 42, at: made, madeAfter: made - 1,
                recoveryCodeHashes: [String(repeating: "a", count: 64), String(repeating: "b", count: 64)],
                recording: []) != nil)
        return store
    }

    /// `store` exported with its second factors, `secrets` for `--include-secrets`.
    static func exportWithFactors(
        _ store: MemoryBrokerStore, secrets: OutboxCipher?
    ) async throws -> (FirebaseExport, FirebaseExporter.Report, String) {
        var exporter = FirebaseExporter(store: AccountTransfer(store: store))
        exporter.includesSecondFactors = true
        exporter.secrets = secrets
        var bytes: [UInt8] = []
        let report = try await exporter.export(to: { bytes += $0 })
        return (try FirebaseExport(data: Data(bytes)), report, String(decoding: bytes, as: UTF8.self))
    }

    static func importer(into store: MemoryBrokerStore, cipher: OutboxCipher?) throws -> FirebaseImporter {
        FirebaseImporter(
            store: AccountTransfer(store: store), options: try FirebaseImportOptions(hash: nil), clock: ManualClock(),
            cipher: cipher)
    }

    @Test func factorsWithTheirSecretsComeBackWorkingUnderTheSameKey() async throws {
        let source = try await Self.storeWithAFactor()
        let (export, report, text) = try await Self.exportWithFactors(source, secrets: try Self.sealingKey)
        #expect(report.secondFactors == 1)
        #expect(!text.contains(Base32.encode(Array(repeating: 9, count: 20), padded: false)))
        #expect(!text.contains(String(repeating: "a", count: 64)))  // the recovery codes' hashes are sealed too

        let target = MemoryBrokerStore(clock: ManualClock())
        let imported = try await Self.importer(into: target, cipher: try Self.sealingKey).run(export)
        #expect(imported == FirebaseImporter.Report(imported: 1, secondFactors: 1))
        let expected = try #require(await source.secondFactorSets(of: [AccountID("mfa")])[AccountID("mfa")])
        let restored = try #require(await target.secondFactorSets(of: [AccountID("mfa")])[AccountID("mfa")])
        #expect(restored == expected)
        #expect(restored.factors.first?.lastUsedStep == 42 && restored.factors.first?.displayName == "Phone")
        // Imported again: unchanged, and the factor is not written twice.
        let again = try await Self.importer(into: target, cipher: try Self.sealingKey).run(export)
        #expect(again == FirebaseImporter.Report(unchanged: 1))
        #expect(await target.secondFactors(uid: AccountID("mfa")).count == 1)
    }

    @Test func factorsWithoutTheirSecretsAreLeftOutAndCounted() async throws {
        let (export, report, text) = try await Self.exportWithFactors(try await Self.storeWithAFactor(), secrets: nil)
        #expect(report.secondFactors == 1)
        #expect(!text.contains("sealed"))
        let user = try export.user(at: 0)
        #expect(user.secondFactors?.factors.map(\.id) == ["f-1"])
        #expect(user.secondFactors?.recoveryCodesLeft == 2 && user.secondFactors?.sealedRecoveryCodes == nil)

        let target = MemoryBrokerStore(clock: ManualClock())
        let imported = try await Self.importer(into: target, cipher: try Self.sealingKey).run(export)
        #expect(imported == FirebaseImporter.Report(imported: 1, secondFactorsLeftOut: 1))
        #expect(imported.json["secondFactorsLeftOut"] == 1 && imported.json["secondFactors"] == nil)
        #expect(await target.account(id: AccountID("mfa")) != nil)
        #expect(await target.secondFactors(uid: AccountID("mfa")).isEmpty)
        #expect(await target.recoveryCodesLeft(uid: AccountID("mfa")) == 0)
    }

    @Test func sealedFactorsNeedTheKeyTheyWereSealedWith() async throws {
        let (export, _, _) = try await Self.exportWithFactors(
            try await Self.storeWithAFactor(), secrets: try Self.sealingKey)
        // No key at all: the whole file is refused before anything is written.
        let keyless = MemoryBrokerStore(clock: ManualClock())
        #expect(throws: FirebaseImportPlan.needsEncryptionKey) {
            _ = try Self.importer(into: keyless, cipher: nil).check(export)
        }
        // Another key: that user is refused, and nothing of it is written.
        let other = OutboxCipher(key: try AESGCMKey(bytes: Array(repeating: 4, count: 32)))
        let target = MemoryBrokerStore(clock: ManualClock())
        let report = try await Self.importer(into: target, cipher: other).run(export)
        #expect(report.imported == 0)
        #expect(
            report.failed.map(\.reason) == ["INVALID_FIELD: brokerSecondFactors (a secret not sealed with this key)"])
        #expect(await target.account(id: AccountID("mfa")) == nil)
    }

    /// A malformed field (its JSON in the user `a`'s `brokerSecondFactors`) refuses its user alone, naming the part
    /// at fault.
    @Test(arguments: [
        ("[]", "INVALID_FIELD: brokerSecondFactors"),
        (
            #"{"factors": [{"factorId": "f", "type": "sms", "enrolledAt": "1"}], "recoveryCodesLeft": 0}"#,
            "INVALID_FIELD: brokerSecondFactors.type"
        ),
        (
            #"{"factors": [{"factorId": "f", "type": "totp"}], "recoveryCodesLeft": 0}"#,
            "INVALID_FIELD: brokerSecondFactors.enrolledAt"
        ),
        (#"{"factors": [], "recoveryCodesLeft": -1}"#, "INVALID_FIELD: brokerSecondFactors.recoveryCodesLeft"),
    ])
    func badSecondFactorFieldsRefuseTheUser(_ field: String, reason: String) async throws {
        let store = MemoryBrokerStore(clock: ManualClock())
        let record = #"{"localId": "a", "brokerSecondFactors": "# + field + "}"
        let export = try FirebaseExport(data: Data(("{\"users\": [" + record + "]}").utf8))
        let report = try await Self.importer(into: store, cipher: try Self.sealingKey).run(export)
        #expect(report.failed.map(\.reason) == [reason])
        #expect(await store.account(id: AccountID("a")) == nil)
    }
}
