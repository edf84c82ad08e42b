import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerStorage
import Foundation
import BrokerTesting
import Testing

/// Mail over libcurl's SMTP against a real server (aiosmtpd), directly and through the outbox.
@Suite("SMTP mail (aiosmtpd)", .enabled(if: SMTPTestServer.isAvailable, "python3-aiosmtpd is not installed (scripts/setup-debian installs it)"), .serialized)
struct SMTPMailTests {
    static let message = MailMessage(
        from: "Demo App <no-reply@example.com>", to: "alice@example.com", subject: "비밀번호 재설정 – Demo App",
        text: "Hello Alice,\nReset here: http://127.0.0.1:8080/auth/action?mode=resetPassword&oobCode=abc\n",
        html: "<p>Hello Alice, <a href=\"http://127.0.0.1:8080/auth/action\">reset</a> (안녕하세요)</p>")

    @Test func aMailArrivesWithItsHeadersAndBothParts() async throws {
        let server = try await SMTPTestServer()
        defer { server.stop() }
        let mailer = CurlSMTPMailer(url: "smtp://127.0.0.1:\(server.port)", password: nil, timeout: 10)
        try await mailer.send(Self.message)

        let received = try server.messages()
        #expect(received.count == 1)
        let mail = try #require(received.first)
        #expect(mail.contains("From: Demo App <no-reply@example.com>"))
        #expect(mail.contains("To: alice@example.com"))
        #expect(mail.contains("Subject: =?UTF-8?B?"))
        #expect(mail.contains("Message-ID: <"))
        #expect(mail.contains("Date: "))
        #expect(mail.contains("multipart/alternative"))
        #expect(mail.contains("Content-Type: text/plain; charset=UTF-8"))
        #expect(mail.contains("Content-Type: text/html; charset=UTF-8"))
        #expect(mail.contains("X-RcptTo: alice@example.com") || mail.contains("X-RcptTo: <alice@example.com>"))
    }

    @Test func aServerThatIsDownIsATransientFailure() async throws {
        let port = try SMTPTestServer.freePort()
        let mailer = CurlSMTPMailer(url: "smtp://127.0.0.1:\(port)", password: nil, timeout: 5)
        let error = await #expect(throws: OutboxDeliveryError.self) { try await mailer.send(Self.message) }
        #expect(error?.code == .transient)
    }

    @Test func anInvalidRecipientIsRefusedBeforeAnyConnection() async throws {
        let mailer = CurlSMTPMailer(url: "smtp://127.0.0.1:1", password: nil, timeout: 5)
        var message = Self.message
        message.to = "alice@example.com>\r\nRCPT TO:<mallory@example.com"
        let error = await #expect(throws: OutboxDeliveryError.self) { try await mailer.send(message) }
        #expect(error?.code == .permanent)
    }

    /// The contract's outage: the server is down when the mail is queued, up later; exactly one mail arrives.
    @Test func anOutageDelaysTheMailAndExactlyOneArrives() async throws {
        let clock = ManualClock()
        let store = MemoryBrokerStore(clock: clock)
        let port = try SMTPTestServer.freePort()
        let mailer = CurlSMTPMailer(url: "smtp://127.0.0.1:\(port)", password: nil, timeout: 5)
        let worker = OutboxWorker(store: store, clock: clock)
        await worker.register(.mail, MailOutboxHandler(mailer: mailer, from: "Demo App <no-reply@example.com>"))
        let job = MailOutboxHandler.job(for: Self.message, uid: AccountID("alice"), createdAt: clock.now)
        try await store.enqueue([job])

        #expect(try await worker.runOnce() == 1)
        let failed = try #require(await store.outboxJob(id: job.id))
        #expect(failed.state == .pending && failed.attempts == 1)

        let server = try await SMTPTestServer(port: port)
        defer { server.stop() }
        #expect(try await worker.runOnce() == 0)  // not due yet: the retry waits 1 s
        clock.advance(by: 1)
        #expect(try await worker.runOnce() == 1)
        clock.advance(by: 3600)
        #expect(try await worker.runOnce() == 0)

        #expect(try server.messages().count == 1)
        let delivered = try #require(await store.outboxJob(id: job.id))
        #expect(delivered.state == .delivered && delivered.attempts == 2 && delivered.payload.isEmpty)
    }

    @Test func aRefusedRecipientEndsTheJob() async throws {
        // aiosmtpd accepts every recipient; a server that refuses is simulated by a 5xx-only responder.
        let store = MemoryBrokerStore()
        let worker = OutboxWorker(store: store)
        await worker.register(.mail, MailOutboxHandler(mailer: RefusingMailer(), from: "no-reply@example.com"))
        let job = MailOutboxHandler.job(for: Self.message, uid: AccountID("alice"), createdAt: Date())
        try await store.enqueue([job])
        try await worker.runOnce()
        let stored = try #require(await store.outboxJob(id: job.id))
        #expect(stored.state == .refused && stored.payload.isEmpty)
        #expect(await store.auditEvents(uid: AccountID("alice"), before: nil, limit: 5).map(\.action.rawValue) == ["outbox_refused"])
    }

    struct RefusingMailer: MailSending {
        func send(_ message: MailMessage) async throws { throw OutboxDeliveryError(.permanent, "550 no such user") }
    }
}
