import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// Mail over TLS in the real process: `mail.caFile` checked by `check-config` and `serve` alike, and a reset
/// mailed over STARTTLS with the login from `BROKER_SMTP_PASSWORD`, which appears in no output.
@Suite(
    "Mail over TLS in the broker process",
    .enabled(
        if: SMTPTestServer.isAvailable && TestCertificates.isAvailable,
        "python3-aiosmtpd or openssl is not installed (scripts/setup-debian installs both)"),
    .serialized)
struct MailTLSProcessTests {
    static let password = "Smtp-Pw-4b8e2a-secret"

    /// A config file for the stubs at an unused port with `mail`, in `directory`.
    static func writeConfig(_ mail: JSONValue, in directory: URL) throws -> String {
        let document = ConfigEdit.set(StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9"), ["mail"], mail)
        let path = directory.appendingPathComponent("providers.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: ["check-config", "serve"])
    func aCAFileThatHoldsNoCertificateIsRefusedAtStart(_ command: String) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notPEM = directory.appendingPathComponent("ca.pem").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: notPEM))
        let config = try Self.writeConfig(
            ["smtpUrl": "smtp://mailer@127.0.0.1:9", "from": "a@example.com", "caFile": .string(notPEM)], in: directory)
        let database = directory.appendingPathComponent("b.sqlite").path
        let child = try ProcessTests.spawn(
            [command, "--config", config, "--database", database, "--port", "0"],
            environment: ["BROKER_SMTP_PASSWORD": Self.password])
        #expect(try await child.wait(seconds: 60) == 1)
        #expect(child.stderr.contains("mail.caFile: "), "\(child.stderr)")
        #expect(!child.stderr.contains(Self.password) && !child.stdout.contains(Self.password))
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    /// `check-config` accepts a good CA file without connecting to the SMTP server (nothing listens there).
    @Test func checkConfigAcceptsAGoodCAFileWithoutConnecting() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let config = try Self.writeConfig(
            [
                "smtpUrl": .string("smtps://127.0.0.1:\(try SMTPTestServer.freePort())"), "from": "a@example.com",
                "caFile": .string(certificates.caFile),
            ], in: directory)
        let child = try ProcessTests.spawn(
            ["check-config", "--config", config], environment: ["BROKER_SMTP_PASSWORD": Self.password])
        #expect(try await child.wait(seconds: 60) == 0, "\(child.stderr)")
        #expect(child.stdout.contains("OK"))
        #expect(!child.stderr.contains(Self.password) && !child.stdout.contains(Self.password))
    }

    /// `serve` mails a reset over STARTTLS, verifying the server against `mail.caFile` and logging in with
    /// `BROKER_SMTP_PASSWORD`; with a wrong password the job waits, and neither password is in the output.
    @Test(arguments: [true, false])
    func serveMailsAResetOverSTARTTLSWithThePasswordFromTheEnvironment(rightPassword: Bool) async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let smtp = try await SMTPTestServer(
            security: .startTLS(certificates), login: SMTPTestServer.Login(user: "mailer", password: Self.password))
        defer { smtp.stop() }
        let config = try Self.writeConfig(
            [
                "smtpUrl": .string("smtp://mailer@127.0.0.1:\(smtp.port)"), "from": "Demo <no-reply@example.com>",
                "caFile": .string(certificates.caFile),
            ], in: directory)
        let database = directory.appendingPathComponent("b.sqlite").path
        let given = rightPassword ? Self.password : "Wrong-\(Self.password)"
        let server = try ProcessTests.spawn(
            ["serve", "--port", "0", "--config", config, "--database", database],
            environment: ["BROKER_SMTP_PASSWORD": given])
        let listening = try await server.waitForLog("\"listening\"")
        let port = try #require(JSONValue.parse(Array(listening.utf8))?["port"]?.intValue)
        let client = try CurlHTTPClient()
        func post(_ path: String, _ body: JSONValue) async throws -> Int {
            try await client.send(
                HTTPClientRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)\(path)",
                    headers: [("Content-Type", "application/json")],
                    body: body.serialized(), timeout: 30)
            ).status
        }
        #expect(try await post("/v1/signup", ["email": "tls@example.com", "password": "first-password"]) == 201)
        #expect(try await post("/v1/password/reset", ["email": "tls@example.com"]) == 204)
        if rightPassword {
            _ = try await server.waitForLog("outbox job delivered")
        } else {
            _ = try await server.waitForLog("outbox attempt failed")
        }
        await client.shutdown()
        server.terminate()
        #expect(try await server.wait() == 0)

        let mails = try smtp.messages()
        #expect(mails.count == (rightPassword ? 1 : 0))
        if rightPassword {
            #expect(CaughtMail(raw: try #require(mails.first)).actionLink?.contains("mode=resetPassword") == true)
        } else {
            #expect(server.stderr.contains("Login denied"))
        }
        #expect(!server.stderr.contains(given) && !server.stdout.contains(given))

        let listing = try ProcessTests.spawn(["admin", "outbox", "--json", "--config", config, "--database", database])
        #expect(try await listing.wait() == 0)
        let jobs = try #require(JSONValue.parse(Array(listing.stdout.utf8))?["jobs"]?.arrayValue)
        #expect(jobs.count == 1)
        #expect(jobs.first?["state"]?.stringValue == (rightPassword ? "delivered" : "pending"))
        #expect(!listing.stdout.contains(given))
    }
}
