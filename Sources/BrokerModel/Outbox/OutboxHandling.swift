import Foundation

/// Delivers one kind of outbox job (a mail, a provider call). Registered with the ``OutboxWorker`` per kind.
public protocol OutboxHandling: Sendable {
    /// Delivers `job` whose (opened) payload is `payload`. Returns once the receiver accepted it; throws
    /// ``OutboxDeliveryError`` with `.permanent` when the receiver refused it for good, and anything else for a
    /// failure worth retrying. Must finish well within the outbox lease (every handler has its own timeout).
    func deliver(_ job: OutboxJob, payload: [UInt8]) async throws
}

/// A failed delivery, compared by code: a handler's verdict on a job, and what the port it delivers through threw
/// (``MailSending``'s refusal by a mail server). Messages never hold a secret.
public struct OutboxDeliveryError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// Worth retrying: the receiver is down, slow or said "later".
        case transient
        /// The receiver refused it for good: the job ends, with an audit event.
        case permanent
    }
    /// The kind of failure.
    public var code: Code
    /// Detail for logs and the admin listing.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }
}

extension OutboxDeliveryError {
    /// None: an internal failure (``CodedError``). A delivery failure, retried by the worker.
    public var refusal: Refusal? { nil }
}
