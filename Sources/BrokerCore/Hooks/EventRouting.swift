import BrokerIdentity
public import BrokerModel
import BrokerStorage
public import Foundation

extension OutboxKind {
    /// An event delivered to one of `events.endpoints` (contract section 16).
    public static let event = OutboxKind("event")
}

/// Which events a committed change sends, and where (contract section 16). Every account change records its audit
/// events in its own transaction (``AccountWriteOptions/recording``); the stores queue, in that same transaction,
/// one ``OutboxKind/event`` job per endpoint that takes the event's type (``AccountWriteOptions/announcing(_:uid:)``),
/// so a change that rolled back sends nothing and a committed one is sent even across a crash.
public struct EventRouting: ChangeAnnouncing {
    /// The endpoints.
    public let settings: EventSettings
    /// When the jobs are queued.
    let clock: any Clock

    /// Routes to `settings`' endpoints.
    public init(settings: EventSettings, clock: any Clock = SystemClock()) {
        self.settings = settings
        self.clock = clock
    }

    /// The routing to `settings`' endpoints; nil when there is none (a store made with nil routes nothing).
    public static func to(_ settings: EventSettings, clock: any Clock = SystemClock()) -> EventRouting? {
        settings.endpoints.isEmpty ? nil : EventRouting(settings: settings, clock: clock)
    }

    /// The events the audit event of a committed change is. A password reset changes the account (its password, its
    /// email verified) and ends its sessions: both.
    public static func types(of event: AuditEvent) -> [EventType] {
        switch event.action {
        case .create, .import: [.userCreated]
        case .signUp: [.userCreated, .userSignedIn]
        case .signIn: event.outcome == "created" ? [.userCreated, .userSignedIn] : [.userSignedIn]
        case .link: [.identityLinked]
        case .unlink: [.identityUnlinked]
        case .disable: [.userDisabled]
        case .enable: [.userEnabled]
        case .update, .verifyEmail, .passwordChange, .emailChange, .emailRecover: [.userUpdated]
        case .delete: [.userDeleted]
        case .revokeSessions: [.sessionsRevoked]
        case .passwordReset: [.userUpdated, .sessionsRevoked]
        case .mfaEnroll: [.mfaEnrolled]
        case .mfaUnenroll: [.mfaRemoved]
        case .passkeyRegister: [.passkeyAdded]
        case .passkeyDelete: [.passkeyRemoved]
        default: []
        }
    }

    /// The jobs delivering `event` (of the account `uid`) to every endpoint that takes its type, each with its own
    /// `webhook-id`, the same on every attempt.
    public func jobs(for event: AuditEvent, uid: AccountID) -> [OutboxJob] {
        var jobs: [OutboxJob] = []
        for type in Self.types(of: event) {
            let body = Self.body(type, event, uid: uid)
            for endpoint in settings.endpoints(for: type) {
                let payload: JSONValue = [
                    "url": .string(endpoint.url), "messageId": .string(WebhookSigner.newMessageID()), "body": body,
                ]
                jobs.append(OutboxJob(kind: .event, uid: uid, payload: payload.serialized(), createdAt: clock.now))
            }
        }
        return jobs
    }

    /// `{"type", "timestamp", "data": {"uid", "provider"?, "actor"}}`: never a token, hash, secret or code.
    static func body(_ type: EventType, _ event: AuditEvent, uid: AccountID) -> JSONValue {
        var data: [String: JSONValue] = ["uid": .string(uid.rawValue), "actor": .string(event.actor.rawValue)]
        if let provider = event.provider { data["provider"] = .string(provider) }
        return ["type": .string(type.rawValue), "timestamp": .string(event.time.rfc3339), "data": .object(data)]
    }
}

extension OutboxJob {
    /// Where an ``OutboxKind/event`` job goes, as admins see it (``EventRouting/shown(_:)``); nil for other kinds.
    public var eventTarget: String? {
        guard kind == .event, !sealed, let url = JSONValue.parse(payload)?["url"]?.stringValue else { return nil }
        return EventRouting.shown(url)
    }
}

extension EventRouting {
    /// An endpoint's URL as listings and error messages show it: without credentials, query or fragment, where an
    /// app may have put a secret.
    public static func shown(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(an endpoint that is not a URL)" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "(an endpoint)"
    }
}

/// Delivers ``OutboxKind/event`` jobs: a POST signed afresh at each attempt (its own `webhook-timestamp` and
/// signature, the job's `webhook-id`); any 2xx is delivered, anything else retried by the outbox's rules.
public struct EventDeliveryHandler: OutboxHandling {
    let settings: EventSettings
    let client: any HTTPClient
    let clock: any Clock
    /// The timeout of one attempt.
    let timeout: TimeInterval

    /// Creates the handler for `settings`' endpoints.
    public init(
        settings: EventSettings, client: any HTTPClient, clock: any Clock = SystemClock(), timeout: TimeInterval = 10
    ) {
        self.settings = settings
        self.client = client
        self.clock = clock
        self.timeout = timeout
    }

    /// Sends the job's event to its endpoint.
    public func deliver(_ job: OutboxJob, payload: [UInt8]) async throws {
        guard let stored = JSONValue.parse(payload), let url = stored["url"]?.stringValue,
            let id = stored["messageId"]?.stringValue, let body = stored["body"]
        else { throw OutboxDeliveryError(.permanent, "not an event delivery") }
        guard let endpoint = settings.endpoints.first(where: { $0.url == url }) else {
            throw OutboxDeliveryError(
                .permanent, "no endpoint \(EventRouting.shown(url)) in events.endpoints any more: delivered to nobody")
        }
        let bytes = body.serialized()
        let request = HTTPClientRequest(
            method: "POST", url: url,
            headers: WebhookSigner(secret: endpoint.secret).headers(id: id, date: clock.now, body: bytes), body: bytes,
            timeout: timeout)
        let response: HTTPClientResponse
        do {
            response = try await client.send(request)
        } catch let error as HTTPClientError {
            throw OutboxDeliveryError(.transient, "\(EventRouting.shown(url)): \(error.code.rawValue) \(error.detail)")
        }
        guard (200..<300).contains(response.status) else {
            throw OutboxDeliveryError(.transient, "\(EventRouting.shown(url)) answered \(response.status)")
        }
    }
}
