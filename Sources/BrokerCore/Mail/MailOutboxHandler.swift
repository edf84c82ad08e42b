public import BrokerModel
public import Foundation

/// Delivers `mail` outbox jobs through a ``MailSending`` port. A job's payload is the JSON of
/// ``payload(for:)``: `to`, `subject`, `text`, `html` (the sender is `mail.from`, taken when the mail is sent).
public struct MailOutboxHandler: OutboxHandling {
    private let mailer: any MailSending
    private let from: String

    /// Creates the handler sending as `from`.
    public init(mailer: any MailSending, from: String) {
        self.mailer = mailer
        self.from = from
    }

    /// A pending `mail` job for `message` (its sender is not stored), marked secret: a mail holds a code.
    public static func job(for message: MailMessage, uid: AccountID?, createdAt: Date) -> OutboxJob {
        OutboxJob(kind: .mail, uid: uid, payload: payload(for: message), secret: true, createdAt: createdAt)
    }

    /// The payload of a mail job.
    public static func payload(for message: MailMessage) -> [UInt8] {
        JSONValue.object([
            "to": .string(message.to), "subject": .string(message.subject), "text": .string(message.text),
            "html": .string(message.html),
        ]).serialized()
    }

    /// Sends the job's mail; a malformed payload or a 5xx refusal is permanent, anything else retried.
    public func deliver(_ job: OutboxJob, payload: [UInt8]) async throws {
        guard let object = JSONValue.parse(payload)?.objectValue, let to = object["to"]?.stringValue,
            let subject = object["subject"]?.stringValue, let text = object["text"]?.stringValue,
            let html = object["html"]?.stringValue
        else { throw OutboxDeliveryError(.permanent, "the mail job's payload is malformed") }
        // The mailer's OutboxDeliveryError is the verdict as it is.
        try await mailer.send(MailMessage(from: from, to: to, subject: subject, text: text, html: html))
    }
}
