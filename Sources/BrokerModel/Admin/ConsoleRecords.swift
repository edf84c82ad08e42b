public import Foundation

/// A browser session of the admin console, stored by a keyed hash of its cookie so it can be ended.
public struct ConsoleSessionRecord: Sendable, Equatable {
    /// The hex HMAC-SHA256 of the cookie's value (``ConsoleSessions``).
    public var tokenHash: String
    /// When it began.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date

    /// Creates a record.
    public init(tokenHash: String, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// The refresh-token sessions of one account, as the console shows them.
public struct SessionSummary: Sendable, Equatable {
    /// Sessions holding a token neither revoked nor expired.
    public var live: Int
    /// When a token of the account was last issued (a sign-in or a refresh), if ever.
    public var lastUsedAt: Date?

    /// Creates a summary.
    public init(live: Int, lastUsedAt: Date?) {
        self.live = live
        self.lastUsedAt = lastUsedAt
    }
}

/// Sign-ins of one provider with one outcome in one time bucket.
public struct SignInCount: Sendable, Equatable {
    /// The bucket's start.
    public var start: Date
    /// The provider (a provider's id, or `password`; empty when unknown).
    public var provider: String
    /// `success`, `created`, or the contract's code of a refusal.
    public var outcome: String
    /// How many.
    public var count: Int

    /// Creates a count.
    public init(start: Date, provider: String, outcome: String, count: Int) {
        self.start = start
        self.provider = provider
        self.outcome = outcome
        self.count = count
    }
}

/// Which audit events a listing wants; nil fields match everything.
public struct AuditFilter: Sendable, Equatable {
    /// Events of this account.
    public var uid: AccountID?
    /// Events with this action (`sign_in`, `disable`, ...; an unrecognized one matches the rows that hold its
    /// string).
    public var action: AuditAction?
    /// Events naming this provider.
    public var provider: String?
    /// Events with this outcome (`success`, `created`, an error code).
    public var outcome: String?

    /// Creates a filter.
    public init(uid: AccountID? = nil, action: AuditAction? = nil, provider: String? = nil, outcome: String? = nil) {
        self.uid = uid
        self.action = action
        self.provider = provider
        self.outcome = outcome
    }
}
