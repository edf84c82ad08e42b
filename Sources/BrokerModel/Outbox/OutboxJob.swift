import BrokerCrypto
public import Foundation

/// What an outbox job delivers; handlers register per kind. Providers' kinds are declared in their folders
/// under `Identity/`.
public struct OutboxKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stored name (`mail`, ...).
    public var rawValue: String

    /// Wraps a stored name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a name.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// A mail over SMTP (section 9).
    public static let mail = OutboxKind("mail")

    /// The name.
    public var description: String { rawValue }
}

/// Where an outbox job stands.
public enum OutboxState: String, Sendable, CaseIterable {
    /// Waiting for its next attempt (or being attempted under a lease).
    case pending
    /// The receiver accepted it; it is never sent again.
    case delivered
    /// The receiver refused it for good (the handler said so).
    case refused
    /// Not delivered within `outbox.giveUpAfterHours`.
    case givenUp = "given_up"
}

/// One delivery the broker owes someone: a mail, a provider call. Written in the same transaction as the
/// change that causes it (``AccountWriteOptions/enqueuing``), delivered later by the ``OutboxWorker``.
public struct OutboxJob: Sendable, Equatable {
    /// A unique, time-ordered id.
    public var id: String
    /// What it delivers.
    public var kind: OutboxKind
    /// The account it concerns, if any (an account write's jobs get the account's uid).
    public var uid: AccountID?
    /// What the handler needs (JSON, usually); sealed with AES-256-GCM when ``sealed``; emptied once a
    /// ``secret`` job is delivered.
    public var payload: [UInt8]
    /// Whether the payload holds a secret (a mail's code, a provider's token): deleted once delivered, encrypted
    /// at rest when a key is configured.
    public var secret: Bool
    /// Whether ``payload`` is an AES-256-GCM box (see ``OutboxCipher``).
    public var sealed: Bool
    /// When it was queued.
    public var createdAt: Date
    /// How many attempts have been started.
    public var attempts: Int
    /// When the next attempt is due (pending jobs only).
    public var nextAttemptAt: Date
    /// Where it stands.
    public var state: OutboxState
    /// When it was delivered, refused or given up.
    public var finishedAt: Date?
    /// The last failure, for operators (never a secret: handlers' messages name no token or code).
    public var lastError: String?

    /// Creates a pending job due at once.
    public init(
        kind: OutboxKind, uid: AccountID? = nil, payload: [UInt8], secret: Bool = false, createdAt: Date,
        id: String = AuditEvent.nextID()
    ) {
        self.id = id
        self.kind = kind
        self.uid = uid
        self.payload = payload
        self.secret = secret
        self.sealed = false
        self.createdAt = createdAt
        self.attempts = 0
        self.nextAttemptAt = createdAt
        self.state = .pending
        self.finishedAt = nil
        self.lastError = nil
    }

    /// Whether a delivery failed: refused, given up, or pending after a failed attempt.
    public var isFailing: Bool {
        switch state {
        case .refused, .givenUp: true
        case .pending: lastError != nil
        case .delivered: false
        }
    }
}

/// A job handed to one worker: the job and the lease that lets that worker alone finish it.
public struct OutboxClaim: Sendable, Equatable {
    /// The job (its `attempts` already counts this attempt).
    public var job: OutboxJob
    /// The lease token; finishing the job with another token changes nothing.
    public var leaseToken: String
    /// When the lease runs out and another worker may claim the job again.
    public var leaseExpiresAt: Date

    /// Creates a claim.
    public init(job: OutboxJob, leaseToken: String, leaseExpiresAt: Date) {
        self.job = job
        self.leaseToken = leaseToken
        self.leaseExpiresAt = leaseExpiresAt
    }
}

/// How a claimed job ended, as written by ``OutboxStore/finish(_:as:at:recording:)``.
public enum OutboxOutcome: Sendable, Equatable {
    /// The receiver accepted it: never sent again; a secret payload is deleted.
    case delivered
    /// It failed and is tried again at `at` (the lease ends).
    case retry(at: Date, error: String)
    /// The receiver refused it for good.
    case refused(error: String)
    /// It was not delivered in time.
    case givenUp(error: String)
}

/// The counts behind the outbox metrics.
public struct OutboxStats: Sendable, Equatable {
    /// Pending jobs.
    public var pending: Int
    /// When the oldest pending job was queued, if any is pending.
    public var oldestPendingCreatedAt: Date?

    /// Creates stats.
    public init(pending: Int, oldestPendingCreatedAt: Date?) {
        self.pending = pending
        self.oldestPendingCreatedAt = oldestPendingCreatedAt
    }
}
