import BrokerCrypto
import BrokerModel
import Foundation

/// Apple's server-to-server notifications (contract section 10): `POST /v1/webhooks/apple` with
/// `{"payload": "<JWT>"}`.
///
/// The payload is verified like an identity token, minus what a notification lacks: RS256 against Apple's JWKS,
/// `iss` and `aud` as for identity tokens, no nonce, `exp` not required but, when present, not past (beyond the
/// clock skew: such a notification is refused and acts on nothing); `iat` at most 24 hours old and not in the future
/// (beyond the clock skew); a `jti` of at most 256 characters, each accepted once within those 24 hours (a mark in
/// the store, consumed in the event's transaction, so a replay here or on another instance changes nothing);
/// `events` a JSON string (an object is accepted too) with `type`, `sub` and `event_time`. What passes becomes a
/// ``ProviderAccountEvent``: `consent-revoked` the user leaving, `account-delete` the Apple ID gone,
/// `email-disabled`/`email-enabled` the private relay's forwarding (with the event's `email`). Other types are
/// answered 200 and change nothing. Anything that does not verify is ``WebhookError`` (401 `INVALID_WEBHOOK`).
struct AppleNotifications: Sendable {
    /// How old a notification may be, and how long its `jti` is remembered.
    static let window: TimeInterval = 24 * 3600
    /// The largest body accepted.
    static let maximumBodyBytes = 16 * 1024

    let provider: ProviderID
    let verifier: IDTokenVerifier
    let clock: any Clock
    let clockSkew: TimeInterval

    /// Builds the verifier from the identity tokens' keys and rules.
    init(provider: ProviderID, issuer: OIDCIssuer, clock: any Clock, clockSkew: TimeInterval) {
        var rules = issuer.rules
        rules.nonce = .optional
        rules.requiresExpiry = false
        rules.requiresSubject = false
        self.provider = provider
        verifier = IDTokenVerifier(keys: issuer.keys, rules: rules, clock: clock)
        self.clock = clock
        self.clockSkew = clockSkew
    }

    /// The verified event of `body` and the mark that makes it single-use; nil for an event type the broker does
    /// not act on.
    func event(fromBody body: [UInt8]) async throws -> (ProviderAccountEvent, SingleUseMark)? {
        guard body.count <= Self.maximumBodyBytes, let document = JSONValue.parse(body),
            let payload = document["payload"]?.stringValue, !payload.isEmpty
        else { throw ProviderError(.invalidRequest, "The body must be {\"payload\": \"<JWT>\"}.") }
        let claims: [String: JSONValue]
        do {
            claims = try await verifier.verify(payload, rawNonce: nil)
        } catch let error as TokenError {
            throw WebhookError(.invalidWebhook, "apple notification: \(error.code.rawValue)")
        }
        let now = clock.now.timeIntervalSince1970
        guard let issued = claims["iat"]?.doubleValue, issued >= now - Self.window - clockSkew else {
            throw WebhookError(.invalidWebhook, "apple notification: iat older than 24 hours")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw WebhookError(.invalidWebhook, "apple notification: no jti")
        }
        let mark = SingleUseMark(
            key: "apple-notification:" + Hex.encode(Digest.sha256(jti)),
            expiresAt: Date(timeIntervalSince1970: issued + Self.window + clockSkew))
        let events: JSONValue?
        switch claims["events"] {
        case .string(let text)?: events = JSONValue.parse(Array(text.utf8))
        case .object(let members)?: events = .object(members)
        default: events = nil
        }
        guard let events, let type = events["type"]?.stringValue, let subject = events["sub"]?.stringValue,
            !subject.isEmpty, subject.utf8.count <= 255
        else { throw WebhookError(.invalidWebhook, "apple notification: events lack type or sub") }
        let email = events["email"]?.stringValue.flatMap { $0.utf8.count <= 320 ? $0 : nil }
        switch type {
        case "consent-revoked": return (.consentRevoked(provider: provider, subject: subject), mark)
        case "account-delete": return (.accountDeleted(provider: provider, subject: subject), mark)
        case "email-disabled":
            return (.emailForwarding(provider: provider, subject: subject, enabled: false, email: email), mark)
        case "email-enabled":
            return (.emailForwarding(provider: provider, subject: subject, enabled: true, email: email), mark)
        default: return nil
        }
    }
}

extension AppleProvider: WebhookProviding {
    /// `POST` at the provider's root: `/v1/webhooks/apple`.
    public var webhookRoutes: [WebhookRoute] {
        [
            WebhookRoute(method: "POST", path: "") { [notifications] request, context, lifecycle in
                if let (event, mark) = try await notifications.event(fromBody: request.body) {
                    try await lifecycle.handle(event, requestID: context.requestID, once: mark)
                } else {
                    context.logger.info("apple notification of a type the broker does not act on")
                }
                return .json(200, [:])
            }
        ]
    }
}
