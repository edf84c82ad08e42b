import BrokerCore
import BrokerDrivers
import BrokerTesting
import Foundation

/// Where `broker demo`'s mails go: a real SMTP sink on a loopback port (aiosmtpd, when Debian's
/// `python3-aiosmtpd` is installed), reached through the broker's own libcurl mailer; otherwise the mails are
/// kept in memory as the outbox hands them to the mailer. Nothing is sent off this machine either way.
final class DemoMailSink: @unchecked Sendable {
    /// The `mail.smtpUrl` the demo's broker is configured with.
    let smtpURL: String
    /// What the demo says about where its mails go.
    let description: String
    private let server: SMTPTestServer?
    private let memory: MemoryMailer?

    private init(smtpURL: String, description: String, server: SMTPTestServer?, memory: MemoryMailer?) {
        self.smtpURL = smtpURL
        self.description = description
        self.server = server
        self.memory = memory
    }

    /// Starts aiosmtpd on a free loopback port, or the in-memory fallback when it cannot run.
    static func start() async -> DemoMailSink {
        if SMTPTestServer.isAvailable, let server = try? await SMTPTestServer() {
            return DemoMailSink(
                smtpURL: "smtp://127.0.0.1:\(server.port)",
                description: "over SMTP (libcurl) to a local sink, aiosmtpd on 127.0.0.1:\(server.port)",
                server: server,
                memory: nil)
        }
        return DemoMailSink(
            smtpURL: "smtp://127.0.0.1:25",
            description: "to an in-memory sink (install python3-aiosmtpd to see it go over SMTP to a local server)",
            server: nil, memory: MemoryMailer())
    }

    /// The mailer the demo's outbox delivers through.
    func mailer() -> any MailSending {
        if let memory { return memory }
        return CurlSMTPMailer(url: smtpURL, password: nil, timeout: 10)
    }

    /// The mails received so far.
    func mails() throws -> [CaughtMail] {
        if let memory {
            return memory.messages.map { CaughtMail(raw: String(decoding: $0.rendered(date: Date()), as: UTF8.self)) }
        }
        return try (server?.messages() ?? []).map(CaughtMail.init(raw:))
    }

    /// Stops the SMTP sink.
    func stop() {
        server?.stop()
        if let server { try? FileManager.default.removeItem(at: server.directory) }
    }
}

/// Keeps the mails it is given (the demo's fallback sink).
final class MemoryMailer: MailSending, @unchecked Sendable {
    // Guarded by `lock`.
    private var sent: [MailMessage] = []
    private let lock = NSLock()

    var messages: [MailMessage] { lock.withLock { sent } }

    func send(_ message: MailMessage) async throws { lock.withLock { sent.append(message) } }
}
