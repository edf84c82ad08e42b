import Foundation

/// The port for sending mail (SMTP through libcurl in BrokerDrivers). Implementations connect per send, never
/// at start.
public protocol MailSending: Sendable {
    /// Hands `message` to the mail server; returns once the server accepted it. Throws ``OutboxDeliveryError``
    /// (`.permanent` when the server refused for good: a 5xx reply to the sender, the recipient or the data, a
    /// failed login; `.transient` for no connection, a timeout, a 4xx reply), whose detail names the server's reply
    /// code, never a password or a mail's body.
    func send(_ message: MailMessage) async throws
}
