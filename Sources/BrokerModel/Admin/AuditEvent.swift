import BrokerCrypto
public import Foundation

/// One entry of the audit log: who did what to which account, and how it ended. Never a token or password.
public struct AuditEvent: Sendable, Equatable {
    /// Who acted.
    public enum Actor: String, Sendable {
        /// The account's user (or someone presenting their credentials).
        case user
        /// An administrator (admin API or CLI).
        case admin
        /// The broker itself (e.g. a pre-hijack takeover).
        case system
    }

    /// A unique id (ordering ties are broken by it).
    public var id: String
    /// When it happened.
    public var time: Date
    /// The account, when known (a refused sign-in may have none).
    public var uid: AccountID?
    /// What happened (stored and shown as its raw value: `sign_in`, `take_over`, ...).
    public var action: AuditAction
    /// The provider involved, if any (a provider's id, or `password`).
    public var provider: String?
    /// Who acted.
    public var actor: Actor
    /// `success`, `created`, or the contract's error code of a refusal.
    public var outcome: String
    /// The request id (`cli` for the command line).
    public var requestID: String
    /// The client's address (through `trustedProxies`), for events of an HTTP request.
    public var clientAddress: String?
    /// The client's `User-Agent`, for events of an HTTP request (see ``RequestOrigin``).
    public var userAgent: String?

    /// Creates an event with a fresh id. `origin` defaults to the request this task is handling.
    public init(
        time: Date, uid: AccountID?, action: AuditAction, provider: String? = nil, actor: Actor, outcome: String = "success",
        requestID: String, id: String = AuditEvent.nextID(), origin: RequestOrigin? = RequestOrigin.current
    ) {
        self.id = id
        self.time = time
        self.uid = uid
        self.action = action
        self.provider = provider
        self.actor = actor
        self.outcome = outcome
        self.requestID = requestID
        clientAddress = origin?.clientAddress
        userAgent = origin?.userAgent
    }

    // Guarded by `idLock`: the last id's counter, so ids of one process increase strictly.
    nonisolated(unsafe) private static var lastCounter: Int64 = 0
    private static let idLock = NSLock()

    /// A new id that sorts after every id this process made before: microseconds since 1970 (bumped to stay
    /// strictly increasing) and a random suffix against other instances. Events of one millisecond thus keep
    /// their order in newest-first listings. The suffix comes from OpenSSL's generator: Foundation's `UUID()`
    /// opens and reads `/dev/urandom` on every call on Linux, three system calls per event.
    public static func nextID() -> String {
        let micros = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let counter = idLock.withLock {
            lastCounter = max(lastCounter + 1, micros)
            return lastCounter
        }
        let digits = String(counter)
        let suffix = Hex.encode(SecureRandom.bytes(4))
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + "-" + suffix
    }

    /// The event as the admin API shows it.
    public var json: JSONValue {
        [
            "time": .string(time.rfc3339), "uid": uid.map { .string($0.rawValue) } ?? .null, "action": .string(action.rawValue),
            "provider": provider.map(JSONValue.string) ?? .null, "actor": .string(actor.rawValue),
            "outcome": .string(outcome), "requestId": .string(requestID),
            "clientAddress": clientAddress.map(JSONValue.string) ?? .null,
            "userAgent": userAgent.map(JSONValue.string) ?? .null,
        ]
    }
}

/// A position in a listing: the last item of the previous page. Opaque to clients (base64url text).
public struct PageCursor: Sendable, Equatable {
    /// The last item's time, in epoch milliseconds.
    public var millis: Int64
    /// The last item's id (uid or event id).
    public var id: String

    /// Creates a cursor.
    public init(millis: Int64, id: String) {
        self.millis = millis
        self.id = id
    }

    /// The cursor of an item made at `date` (stored at millisecond precision).
    public init(at date: Date, id: String) {
        self.init(millis: date.epochMilliseconds, id: id)
    }

    /// Parses a cursor a client sent back; nil when it is not one of ours.
    public init?(token: String) {
        guard let bytes = Base64URL.decode(token), let text = String(bytes: bytes, encoding: .utf8),
            let colon = text.firstIndex(of: ":"), let millis = Int64(text[..<colon])
        else { return nil }
        self.millis = millis
        self.id = String(text[text.index(after: colon)...])
        guard !id.isEmpty else { return nil }
    }

    /// The opaque text handed to clients.
    public var token: String { Base64URL.encode(Array("\(millis):\(id)".utf8)) }
}
