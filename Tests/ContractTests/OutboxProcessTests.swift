import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerIdentity
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The outbox in the real process: `broker serve` delivers what a previous run left queued, `broker admin
/// outbox` lists jobs without their payloads, and a sealed payload never reaches the database files in clear.
@Suite("Outbox in the broker process", .enabled(if: SMTPTestServer.isAvailable, "python3-aiosmtpd is not installed (scripts/setup-debian installs it)"))
struct OutboxProcessTests {
    static let key = Base64.encode(Array(repeating: 11, count: 32))
    static let secret = "OOB-SECRET-7f3a9c"

    /// A database holding one sealed mail job (as if a previous run queued it and stopped) and one plain job.
    static func prepareDatabase(_ path: String) async throws -> (mail: OutboxJob, other: OutboxJob, plain: [UInt8]) {
        let database = try await SQLiteDatabase.open(path: path)
        let store = try await SQLBrokerStore(database: database)
        let cipher = try #require(try OutboxCipher.fromEnvironment(["BROKER_ENCRYPTION_KEY": key]))
        let message = MailMessage(
            from: "ignored@example.com", to: "alice@example.com", subject: "Reset your password",
            text: "code \(secret)", html: "<p>code \(secret)</p>")
        let plainJob = MailOutboxHandler.job(for: message, uid: AccountID("alice"), createdAt: Date())
        let mail = try cipher.sealing(plainJob)
        #expect(mail.sealed)
        #expect(try cipher.opening(mail) == plainJob.payload)
        let other = OutboxJob(kind: .kakaoUnlink, uid: AccountID("bob"), payload: Array("{\"PLAIN-MARKER\":1}".utf8), createdAt: Date())
        try await store.enqueue([mail, other])
        let stored = try #require(try await store.outboxJob(id: mail.id))
        #expect(stored.sealed && stored.payload == mail.payload)
        await database.close()
        return (mail, other, plainJob.payload)
    }

    /// The database file and its WAL as text (payloads are stored in base64, so look for that too).
    static func fileText(_ path: String) -> String {
        [path, path + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
            .map { String(decoding: $0, as: UTF8.self) }.joined()
    }

    @Test func serveDeliversAQueuedMailOnceAndTheCLIListsJobsWithoutPayloads() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        let database = directory.appendingPathComponent("b.sqlite").path
        let (mail, other, plain) = try await Self.prepareDatabase(database)
        let plainInFile = Base64.encode(plain)
        #expect(!Self.fileText(database).contains(plainInFile))
        #expect(Self.fileText(database).contains(Base64.encode(mail.payload)))  // the search does find stored payloads

        guard case .object(var config) = StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9") else {
            Issue.record("the stub config is not an object")
            return
        }
        config["mail"] = ["smtpUrl": .string("smtp://127.0.0.1:\(smtp.port)"), "from": "Demo App <no-reply@example.com>"]
        let configPath = directory.appendingPathComponent("providers.json").path
        try Data(JSONValue.object(config).serialized()).write(to: URL(fileURLWithPath: configPath))
        let environment = ["BROKER_ENCRYPTION_KEY": Self.key]

        let server = try ProcessTests.spawn(
            ["serve", "--port", "0", "--config", configPath, "--database", database], environment: environment)
        _ = try await server.waitForLog("\"listening\"")
        _ = try await server.waitForLog("outbox job delivered")
        server.terminate()
        #expect(try await server.wait() == 0)

        let received = try smtp.messages()
        #expect(received.count == 1)
        #expect(received.first?.contains("From: Demo App <no-reply@example.com>") == true)
        #expect(!server.stderr.contains(Self.secret))

        func admin(_ arguments: [String]) async throws -> (Int32, String) {
            let child = try ProcessTests.spawn(
                ["admin", "outbox"] + arguments + ["--config", configPath, "--database", database], environment: environment)
            let status = try await child.wait()
            return (status, child.stdout)
        }
        let (status, listing) = try await admin(["--json"])
        #expect(status == 0)
        let jobs = try #require(JSONValue.parse(Array(listing.utf8))?["jobs"]?.arrayValue)
        #expect(jobs.count == 2)
        let listedMail = try #require(jobs.first { $0["id"]?.stringValue == mail.id })
        #expect(listedMail["state"] == "delivered" && listedMail["kind"] == "mail" && listedMail["attempts"] == .int(1))
        // No handler for Kakao unlinks in this build: the job waits, with the reason.
        let listedOther = try #require(jobs.first { $0["id"]?.stringValue == other.id })
        #expect(listedOther["state"] == "pending")
        #expect(!listing.contains(Self.secret) && !listing.contains("PLAIN-MARKER") && !listing.contains("payload"))
        let (_, bobs) = try await admin(["--uid", "bob"])
        #expect(bobs.contains(other.id) && !bobs.contains(mail.id) && bobs.contains("1 job"))
        #expect(!Self.fileText(database).contains(plainInFile))
    }
}
