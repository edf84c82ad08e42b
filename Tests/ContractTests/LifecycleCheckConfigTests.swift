import BrokerCore
import BrokerCrypto
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
}
