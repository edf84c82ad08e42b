import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// With `mfa.totp` enabled, `serve` (which verifies codes) needs `BROKER_ENCRYPTION_KEY`; the admin commands ask for
/// it only where they open sealed data (issue 58): `export --include-secrets`, an import of secrets. The others run
/// without it, the read-only ones and the writes alike. Serialized: each case starts a process.
@Suite(.serialized) struct AdminEncryptionKeyTests {
    /// The shipped config with authenticator-app second factors on, in `directory`.
    static func totpConfig(in directory: URL) throws -> String {
        var document = try #require(
            JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: ProcessTests.shippedConfig)))))
        document = ConfigEdit.set(document, ["mfa"], ["totp": ["enabled": true]])
        let path = directory.appendingPathComponent("totp.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func adminCommandsThatOpenNoSealedDataRunWithoutTheKey() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = try Self.totpConfig(in: directory)
        let database = directory.appendingPathComponent("b.sqlite").path
        let sqlite = try SQLiteDatabase(path: database)
        let store = try await SQLBrokerStore(database: sqlite)
        let now = Date()
        try await store.create(
            Account(id: AccountID("u-1"), email: "kim@example.com", emailVerified: true, createdAt: now))
        await sqlite.close()

        func admin(_ arguments: [String]) async throws -> (Int32, String, String) {
            let child = try ProcessTests.spawn(["admin"] + arguments + ["--config", config, "--database", database])
            let status = try await child.wait(seconds: 60)
            return (status, child.stdout, child.stderr)
        }
        let (listed, users, listError) = try await admin(["users", "list", "--json"])
        #expect(listed == 0, "\(listError)")
        #expect(JSONValue.parse(Array(users.utf8))?["users"]?.arrayValue?.count == 1)
        #expect(!listError.contains("BROKER_ENCRYPTION_KEY"))
        let (shown, user, _) = try await admin(["users", "show", "u-1"])
        #expect(shown == 0)
        #expect(user.contains("kim@example.com"))
        let (audited, _, _) = try await admin(["audit"])
        #expect(audited == 0)
        let (keys, _, _) = try await admin(["keys", "list"])
        #expect(keys == 0)
        let (outbox, _, _) = try await admin(["outbox"])
        #expect(outbox == 0)
        // A write too: the account is disabled, and that is stored.
        let (disabled, _, disableError) = try await admin(["users", "disable", "u-1", "--json"])
        #expect(disabled == 0, "\(disableError)")
        let (after, shownAfter, _) = try await admin(["users", "show", "u-1", "--json"])
        #expect(after == 0)
        #expect(JSONValue.parse(Array(shownAfter.utf8))?["disabled"] == true)

        // Exporting the factors' secrets opens sealed data: it still needs the key, and writes nothing without it.
        let file = directory.appendingPathComponent("users.json").path
        let (exported, _, exportError) = try await admin(["export", file, "--include-secrets"])
        #expect(exported == 2)
        #expect(exportError.contains("--include-secrets needs BROKER_ENCRYPTION_KEY"))
        #expect(!FileManager.default.fileExists(atPath: file))
        // And `serve`, which verifies codes, is still refused without it, as check-config says.
        let check = try ProcessTests.spawn(["check-config", "--config", config, "--database", database])
        #expect(try await check.wait(seconds: 60) == 1)
        #expect(check.stderr.contains("mfa.totp.enabled: needs BROKER_ENCRYPTION_KEY"))
    }
}
