import Foundation

/// The port for sending mail (SMTP through libcurl in BrokerDrivers). Implementations connect per send, never
/// at start.
public protocol MailSending: Sendable {
    /// Hands `message` to the mail server; returns once the server accepted it. Throws ``MailError``.
    func send(_ message: MailMessage) async throws
}

/// A failed send, compared by code. Details name the server's reply code, never a password or a mail's body.
public struct MailError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// Worth retrying: no connection, a timeout, a 4xx reply.
        case transient
        /// The server refused for good: a 5xx reply to the sender, the recipient or the data, failed login.
        case permanent
    }
    /// The kind of failure.
    public var code: Code
    /// Detail for logs.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }
}

extension MailError {
    /// None: an internal failure (``CodedError``). A mail that could not be sent.
    public var refusal: Refusal? { nil }
}
