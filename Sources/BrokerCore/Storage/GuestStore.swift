public import Foundation

/// What the sweep of inactive guests needs from a store (contract section 13): the guests to delete, and a lease so
/// that one instance at a time sweeps; and the per-address count of guests made.
public protocol GuestStore: Sendable {
    /// In one transaction: unless `limit` guests were made from `address` since `date - window`, records one at
    /// `date` and returns nil; otherwise records nothing and returns when the oldest counted one leaves the window.
    /// Records older than the window are purged.
    func reserveGuestCreation(address: String, at date: Date, window: TimeInterval, limit: Int) async throws -> Date?
    /// Up to `limit` guests (``Account/isAnonymous``) inactive since `cutoff`: made, last signed in and last given
    /// a refresh token (a session's sign-in or refresh) before it. Oldest first.
    func inactiveGuests(before cutoff: Date, limit: Int) async throws -> [AccountID]
    /// Takes or extends the lease `name` for `holder` until `expiresAt`, when it is free (never taken, expired at
    /// `now`, or already `holder`'s); true when `holder` holds it. Decided in one transaction, so of instances
    /// asking at once exactly one gets it.
    func acquireLease(_ name: String, holder: String, until expiresAt: Date, now: Date) async throws -> Bool
}

extension GuestStore {
    /// The window of a per-address limit on accounts made without a secret: an hour.
    static var creationWindow: TimeInterval { 3600 }

    /// Counts one account made under `key` at `now` (``reserveGuestCreation(address:at:window:limit:)``, over
    /// ``creationWindow``), or throws `AccountError(.tooManyAttempts)` with the seconds until one may be made when
    /// `limit` were made under it within the window: the guests' limit per client address, and passwordless
    /// sign-ups' (under keys of their own, so that the two are counted apart).
    func reserveCreation(_ key: String, limit: Int, at now: Date) async throws {
        if let allowedAt = try await reserveGuestCreation(
            address: key, at: now, window: Self.creationWindow, limit: limit)
        {
            throw AccountError.tooManyAttempts(until: allowedAt, from: now, window: Self.creationWindow)
        }
    }
}
