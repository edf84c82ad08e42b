import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// `broker check-config` and `broker serve` on the lifecycle settings (contract section 10): a Sign in with Apple
/// client secret needs `BROKER_ENCRYPTION_KEY`; with it (and a Kakao admin key file) the config passes; the key
/// file's content is never printed.
@Suite(.serialized) struct LifecycleCheckConfigTests {
    static let adminKey = "kakao-admin-key-never-printed-42"

    static func writeConfig(into directory: URL) throws -> String {
        let keyFile = try StubProviders().appleAuth.writeKeyFile(into: directory)
        let adminKeyFile = directory.appendingPathComponent("kakao-admin-key").path
        try Data((adminKey + "\n").utf8).write(to: URL(fileURLWithPath: adminKeyFile))
        var document = StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9")
        document = ConfigEdit.set(
            document, ["providers", "apple", "clientSecret"],
            [
                "teamId": .string(StubAppleAuth.teamID), "keyId": .string(StubAppleAuth.keyID),
                "privateKeyFile": .string(keyFile), "clientId": .string(StubAppleAuth.clientID),
            ])
        document = ConfigEdit.set(document, ["providers", "kakao", "adminKeyFile"], .string(adminKeyFile))
        let path = directory.appendingPathComponent("providers.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: ["check-config", "serve"])
    func aClientSecretWithoutAnEncryptionKeyIsRefused(_ command: String) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = try Self.writeConfig(into: directory)
        let database = directory.appendingPathComponent("b.sqlite").path
        let child = try ProcessTests.spawn([command, "--config", config, "--database", database, "--port", "0"])
        #expect(try await child.wait(seconds: 60) == 1)
        #expect(child.stderr.contains("providers.apple.clientSecret: needs BROKER_ENCRYPTION_KEY"), "\(child.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
        #expect(!child.stderr.contains(Self.adminKey) && !child.stdout.contains(Self.adminKey))
    }

    @Test func withTheKeyTheConfigPassesAndNoSecretIsPrinted() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = try Self.writeConfig(into: directory)
        let child = try ProcessTests.spawn(
            ["check-config", "--config", config],
            environment: ["BROKER_ENCRYPTION_KEY": Base64.encode(Array(repeating: 5, count: 32))])
        #expect(try await child.wait(seconds: 60) == 0, "\(child.stderr)")
        #expect(child.stdout.contains("OK"))
        #expect(!child.stderr.contains(Self.adminKey) && !child.stdout.contains(Self.adminKey))
        #expect(!child.stdout.contains("PRIVATE KEY") && !child.stderr.contains("PRIVATE KEY"))
    }

    /// `broker admin import` and `broker admin export` build the providers as `serve` does, with the key of
    /// `BROKER_ENCRYPTION_KEY`: with a Sign in with Apple client secret configured and the key set, both work.
    @Test func importAndExportWorkWithAClientSecretAndTheKey() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = try Self.writeConfig(into: directory)
        let database = directory.appendingPathComponent("b.sqlite").path
        let users = try FirebaseImportTests.write([FirebaseImportTests.googleUser], in: directory)
        let environment = ["BROKER_ENCRYPTION_KEY": Base64.encode(Array(repeating: 5, count: 32))]

        let importer = try ProcessTests.spawn(
            ["admin", "import", "firebase", users, "--json", "--config", config, "--database", database],
            environment: environment)
        #expect(try await importer.wait(seconds: 60) == 0, "\(importer.stderr)")
        #expect(JSONValue.parse(Array(importer.stdout.utf8)) == .object(["imported": 1, "unchanged": 0, "failed": []]))
        let stored = try await FirebaseImportTests.accounts(in: database)
        #expect(stored[AccountID("firebase-uid-of-jane")]?.identities.map(\.subject) == ["g-jane"])

        let exported = directory.appendingPathComponent("export.json")
        let exporter = try ProcessTests.spawn(
            ["admin", "export", exported.path, "--json", "--config", config, "--database", database],
            environment: environment)
        #expect(try await exporter.wait(seconds: 60) == 0, "\(exporter.stderr)")
        let file = try #require(FileManager.default.contents(atPath: exported.path))
        guard case .object(let document)? = JSONValue.parse(Array(file)), case .array(let written)? = document["users"]
        else { Issue.record("the export is not a users document"); return }
        #expect(written.count == 1)
        #expect(written.first?["localId"] == "firebase-uid-of-jane")
        #expect(!importer.stderr.contains("PRIVATE KEY") && !exporter.stderr.contains("PRIVATE KEY"))
    }
}
