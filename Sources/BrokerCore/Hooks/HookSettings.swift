public import BrokerModel
public import Foundation

/// What a blocking hook's failure does to the sign-in (`onFailure`): a timeout, another status than 200 or a
/// body that is not an answer.
public enum HookFailurePolicy: String, Sendable, Equatable {
    /// The sign-in is refused with 503 `HOOK_UNAVAILABLE` (the default).
    case deny
    /// The sign-in goes on as if the hook had answered `{}`; the failure is logged.
    case allow
}

/// One blocking hook (`hooks.beforeCreate`, `hooks.beforeSignIn`; contract section 16).
public struct HookEndpoint: Sendable, Equatable {
    /// `url`: where the broker POSTs; `https://` unless `allowInsecureProviderUrls`.
    public var url: String
    /// The secret read from `secretFile`.
    public var secret: WebhookSecret
    /// `timeoutMs` (100 to 30,000; default 2,000), in seconds.
    public var timeout: TimeInterval
    /// `onFailure` (default `deny`).
    public var onFailure: HookFailurePolicy

    /// Creates a hook.
    public init(url: String, secret: WebhookSecret, timeout: TimeInterval = 2, onFailure: HookFailurePolicy = .deny) {
        self.url = url
        self.secret = secret
        self.timeout = timeout
        self.onFailure = onFailure
    }

    /// Reads one hook's section; `allowInsecure` lets its URL be `http://`.
    init(reading section: ConfigReader, allowInsecure: Bool) throws {
        try section.allowOnly(["url", "secretFile", "timeoutMs", "onFailure"])
        url = try section.url("url", allowInsecure: allowInsecure)
        secret = try WebhookSecret(file: try section.string("secretFile"), field: section.field("secretFile"))
        timeout = TimeInterval(try section.int("timeoutMs", default: 2000, range: 100...30_000)) / 1000
        let policy = try section.optionalString("onFailure") ?? HookFailurePolicy.deny.rawValue
        guard let onFailure = HookFailurePolicy(rawValue: policy) else {
            throw ConfigError(field: section.field("onFailure"), "must be \"deny\" or \"allow\"")
        }
        self.onFailure = onFailure
    }
}

/// The `hooks` section: the app's say in sign-ins (none by default).
public struct HookSettings: Sendable, Equatable {
    /// `hooks.beforeCreate`: asked before a new account is stored.
    public var beforeCreate: HookEndpoint?
    /// `hooks.beforeSignIn`: asked once per sign-in, just before its session is made.
    public var beforeSignIn: HookEndpoint?

    /// No hook.
    public static let none = HookSettings()

    /// Creates settings.
    public init(beforeCreate: HookEndpoint? = nil, beforeSignIn: HookEndpoint? = nil) {
        self.beforeCreate = beforeCreate
        self.beforeSignIn = beforeSignIn
    }

    /// Reads the `hooks` section (nil: no hook); `allowInsecure` lets the URLs be `http://`.
    public init(reading section: ConfigReader?, allowInsecure: Bool) throws {
        self.init()
        guard let section else { return }
        try section.allowOnly(["beforeCreate", "beforeSignIn"])
        beforeCreate = try section.child("beforeCreate").map {
            try HookEndpoint(reading: $0, allowInsecure: allowInsecure)
        }
        beforeSignIn = try section.child("beforeSignIn").map {
            try HookEndpoint(reading: $0, allowInsecure: allowInsecure)
        }
    }

    /// Whether any hook is configured.
    public var isEmpty: Bool { beforeCreate == nil && beforeSignIn == nil }
}

/// The kinds of event the broker delivers to `events.endpoints` (contract section 16).
public enum EventType: String, Sendable, CaseIterable, Codable {
    /// An account was created (a sign-up, a first sign-in, a guest, an import or an admin create).
    case userCreated = "user.created"
    /// An account's profile changed.
    case userUpdated = "user.updated"
    /// An account was deleted.
    case userDeleted = "user.deleted"
    /// An account was disabled.
    case userDisabled = "user.disabled"
    /// An account was enabled again.
    case userEnabled = "user.enabled"
    /// A provider's identity was linked to an account.
    case identityLinked = "identity.linked"
    /// A provider's identity was unlinked from an account.
    case identityUnlinked = "identity.unlinked"
    /// Every session of an account was revoked.
    case sessionsRevoked = "sessions.revoked"
    /// A second factor was enrolled.
    case mfaEnrolled = "mfa.enrolled"
    /// A second factor was removed.
    case mfaRemoved = "mfa.removed"
    /// A passkey was registered.
    case passkeyAdded = "passkey.added"
    /// A passkey was removed, by its owner or an administrator.
    case passkeyRemoved = "passkey.removed"
    /// A sign-in completed.
    case userSignedIn = "user.signed_in"
}

/// One receiver of events (`events.endpoints[i]`).
public struct EventEndpoint: Sendable, Equatable {
    /// `url`: where deliveries are POSTed; `https://` unless `allowInsecureProviderUrls`.
    public var url: String
    /// The secret read from `secretFile`.
    public var secret: WebhookSecret
    /// `types`: the events it is sent (required, not empty).
    public var types: Set<EventType>

    /// Creates an endpoint.
    public init(url: String, secret: WebhookSecret, types: Set<EventType>) {
        self.url = url
        self.secret = secret
        self.types = types
    }
}

/// The `events` section: where the broker tells the app what happened (no endpoint by default).
public struct EventSettings: Sendable, Equatable {
    /// `events.endpoints`, in the file's order.
    public var endpoints: [EventEndpoint]

    /// Creates settings.
    public init(endpoints: [EventEndpoint] = []) {
        self.endpoints = endpoints
    }

    /// Reads the `events` section (nil: no endpoint); `allowInsecure` lets the URLs be `http://`.
    public init(reading section: ConfigReader?, allowInsecure: Bool) throws {
        self.init()
        guard let section else { return }
        try section.allowOnly(["endpoints"])
        guard let list = section.members["endpoints"], list != .null else { return }
        guard let items = list.arrayValue else {
            throw ConfigError(field: section.field("endpoints"), "must be a list of objects")
        }
        for (index, item) in items.enumerated() {
            let entry = try ConfigReader(
                path: section.field("endpoints[\(index)]"), value: item, issues: section.issues)
            try entry.allowOnly(["url", "secretFile", "types"])
            let url = try entry.url("url", allowInsecure: allowInsecure)
            let secret = try WebhookSecret(file: try entry.string("secretFile"), field: entry.field("secretFile"))
            var types: Set<EventType> = []
            for name in try entry.strings("types", nonEmpty: true) {
                guard let type = EventType(rawValue: name) else {
                    let known = EventType.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ConfigError(field: entry.field("types"), "unknown event type \"\(name)\" (known: \(known))")
                }
                types.insert(type)
            }
            endpoints.append(EventEndpoint(url: url, secret: secret, types: types))
        }
    }

    /// The endpoints that are sent `type`.
    public func endpoints(for type: EventType) -> [EventEndpoint] {
        endpoints.filter { $0.types.contains(type) }
    }
}
