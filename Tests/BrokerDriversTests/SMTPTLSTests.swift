import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// Mail over TLS against real aiosmtpd servers with a throwaway CA: `smtps://`, STARTTLS on `smtp://`, a
/// certificate the broker does not trust, the plain-SMTP fallback only without credentials, and the SMTP
/// password kept out of every error.
@Suite(
    "SMTP over TLS (aiosmtpd, throwaway CA)",
    .enabled(
        if: SMTPTestServer.isAvailable && TestCertificates.isAvailable,
        "python3-aiosmtpd or openssl is not installed (scripts/setup-debian installs both)"),
    .serialized)
struct SMTPTLSTests {
    static let password = "Pw-7c1e9d-never-logged"
    static let login = SMTPTestServer.Login(user: "mailer", password: password)

    /// One CA and server certificate for the suite's servers, and a second CA that did not sign them.
    static func certificates() async throws -> (server: TestCertificates, other: TestCertificates) {
        (try await TestCertificates.make(), try await TestCertificates.make())
    }

    @Test func aMailArrivesOverImplicitTLS() async throws {
        let (certificates, other) = try await Self.certificates()
        defer { certificates.remove(); other.remove() }
        let server = try await SMTPTestServer(security: .implicitTLS(certificates))
        defer { server.stop() }
        let mailer = CurlSMTPMailer(
            url: "smtps://127.0.0.1:\(server.port)", password: nil, caFile: certificates.caFile, timeout: 10)
        try await mailer.send(SMTPMailTests.message)
        let received = try server.messages()
        #expect(received.count == 1)
        #expect(received.first?.contains("Subject: =?UTF-8?B?") == true)
    }

    /// STARTTLS on `smtp://` with a login: the server refuses mail and AUTH before the upgrade, so the mail's
    /// arrival shows that the upgrade happened and the certificate was verified.
    @Test func aMailArrivesOverSTARTTLSWithALogin() async throws {
        let (certificates, other) = try await Self.certificates()
        defer { certificates.remove(); other.remove() }
        let server = try await SMTPTestServer(security: .startTLS(certificates), login: Self.login)
        defer { server.stop() }
        for requireTLS in [true, false] {
            let mailer = CurlSMTPMailer(
                url: "smtp://mailer@127.0.0.1:\(server.port)", password: Self.password, caFile: certificates.caFile,
                requireTLS: requireTLS, timeout: 10)
            try await mailer.send(SMTPMailTests.message)
        }
        #expect(try server.messages().count == 2)
    }

    enum Mode: String, CaseIterable, Sendable { case implicitTLS, startTLS }

    /// A server whose certificate does not chain to the trusted CA (another CA's, or the system's store for a
    /// throwaway CA) gets no mail; the job is retried, neither sent nor given up.
    @Test(arguments: Mode.allCases)
    func anUntrustedCertificateGetsNoMailAndTheJobIsRetried(mode: Mode) async throws {
        let (certificates, other) = try await Self.certificates()
        defer { certificates.remove(); other.remove() }
        let server = try await SMTPTestServer(
            security: mode == .implicitTLS ? .implicitTLS(certificates) : .startTLS(certificates))
        defer { server.stop() }
        let url = (mode == .implicitTLS ? "smtps" : "smtp") + "://127.0.0.1:\(server.port)"
        for caFile in [other.caFile, nil] {
            let mailer = CurlSMTPMailer(url: url, password: nil, caFile: caFile, timeout: 10)
            let error = await #expect(throws: OutboxDeliveryError.self) { try await mailer.send(SMTPMailTests.message) }
            #expect(error?.code == .transient)
        }

        let clock = ManualClock()
        let store = MemoryBrokerStore(clock: clock)
        let worker = OutboxWorker(store: store, clock: clock)
        let mailer = CurlSMTPMailer(url: url, password: nil, caFile: other.caFile, timeout: 10)
        await worker.register(.mail, MailOutboxHandler(mailer: mailer, from: "Demo App <no-reply@example.com>"))
        let job = MailOutboxHandler.job(for: SMTPMailTests.message, uid: AccountID("alice"), createdAt: clock.now)
        try await store.enqueue([job])
        #expect(try await worker.runOnce() == 1)
        clock.advance(by: 1)
        #expect(try await worker.runOnce() == 1)
        let stored = try #require(await store.outboxJob(id: job.id))
        #expect(stored.state == .pending && stored.attempts == 2 && !stored.payload.isEmpty)
        #expect(stored.lastError?.contains("certificate") == true || stored.lastError?.contains("SSL") == true)
        #expect(await store.auditEvents(uid: AccountID("alice"), before: nil, limit: 5).isEmpty)
        #expect(try server.messages().isEmpty)
    }

    /// The certificate names 127.0.0.1 only: reached as `localhost`, the right CA is not enough.
    @Test func aCertificateForAnotherHostIsRefused() async throws {
        let (certificates, other) = try await Self.certificates()
        defer { certificates.remove(); other.remove() }
        let server = try await SMTPTestServer(security: .implicitTLS(certificates))
        defer { server.stop() }
        let mailer = CurlSMTPMailer(
            url: "smtps://localhost:\(server.port)", password: nil, caFile: certificates.caFile, timeout: 10)
        let error = await #expect(throws: OutboxDeliveryError.self) { try await mailer.send(SMTPMailTests.message) }
        #expect(error?.code == .transient)
        #expect(try server.messages().isEmpty)
    }

    /// Without credentials, a `smtp://` server that offers no STARTTLS still gets the mail in plain SMTP (a
    /// local relay); with credentials the broker refuses to send them in clear, and the job is retried.
    @Test func plainSMTPIsUsedOnlyWhenNoCredentialsAreSent() async throws {
        let server = try await SMTPTestServer(security: .plain)
        defer { server.stop() }
        let settings = try MailSettings(
            reading: try ConfigReader(
                path: "mail", value: ["smtpUrl": .string("smtp://127.0.0.1:\(server.port)"), "from": "a@example.com"]),
            projectID: "demo", environment: [:])
        #expect(!settings.requiresTLS)
        try await CurlSMTPMailer(settings: settings, timeout: 10).send(SMTPMailTests.message)
        #expect(try server.messages().count == 1)

        // This server would take the login in clear (it offers AUTH without TLS): the broker must not.
        let clear = try await SMTPTestServer(security: .plain, login: Self.login)
        defer { clear.stop() }
        let withLogin = try MailSettings(
            reading: try ConfigReader(
                path: "mail",
                value: ["smtpUrl": .string("smtp://mailer@127.0.0.1:\(clear.port)"), "from": "a@example.com"]),
            projectID: "demo", environment: ["BROKER_SMTP_PASSWORD": Self.password])
        #expect(withLogin.requiresTLS)
        let error = await #expect(throws: OutboxDeliveryError.self) {
            try await CurlSMTPMailer(settings: withLogin, timeout: 10).send(SMTPMailTests.message)
        }
        #expect(error?.code == .transient)
        #expect(error?.detail.contains(Self.password) == false)
        #expect(try clear.messages().isEmpty)
        #expect(try server.messages().count == 1)
    }

    /// A wrong password is retried (the operator can fix it) and appears in no error, outbox record or log.
    @Test func aRefusedLoginIsRetriedAndThePasswordAppearsNowhere() async throws {
        let (certificates, other) = try await Self.certificates()
        defer { certificates.remove(); other.remove() }
        let server = try await SMTPTestServer(security: .startTLS(certificates), login: Self.login)
        defer { server.stop() }
        let wrong = "Wrong-\(Self.password)"
        let mailer = CurlSMTPMailer(
            url: "smtp://mailer@127.0.0.1:\(server.port)", password: wrong, caFile: certificates.caFile,
            requireTLS: true, timeout: 10)
        let error = await #expect(throws: OutboxDeliveryError.self) { try await mailer.send(SMTPMailTests.message) }
        #expect(error?.code == .transient)
        #expect(error.map { !$0.detail.contains(wrong) && !"\($0)".contains(wrong) } == true)

        let logs = MemoryLogSink()
        let store = MemoryBrokerStore()
        let worker = OutboxWorker(store: store, logger: Logger(sink: logs))
        await worker.register(.mail, MailOutboxHandler(mailer: mailer, from: "no-reply@example.com"))
        let job = MailOutboxHandler.job(for: SMTPMailTests.message, uid: AccountID("alice"), createdAt: Date())
        try await store.enqueue([job])
        #expect(try await worker.runOnce() == 1)
        let stored = try #require(await store.outboxJob(id: job.id))
        #expect(stored.state == .pending && stored.attempts == 1)
        let lastError = try #require(stored.lastError)
        #expect(lastError.contains("Login denied") && !lastError.contains(wrong))
        let logged = logs.lines.joined(separator: "\n")
        #expect(logged.contains("outbox attempt failed") && !logged.contains(wrong))
        #expect(try server.messages().isEmpty)
    }
}
