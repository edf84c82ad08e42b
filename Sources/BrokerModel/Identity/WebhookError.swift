/// A provider's call to a webhook that did not verify (a wrong key or app id, a forged, stale or malformed
/// notification): 401 `INVALID_WEBHOOK`, nothing changed, and the failure counts toward the caller's address's
/// throttle (the admin API's).
public struct WebhookError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// The call's credentials or signature do not verify, or its content is not acceptable.
        case invalidWebhook
    }

    /// The reason.
    public var code: Code
    /// Detail for logs only: never a key or a payload.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code = .invalidWebhook, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}

extension WebhookError {
    /// A webhook call that did not verify (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .invalidWebhook: .invalidWebhook
        }
    }
}
