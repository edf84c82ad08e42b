public import BrokerModel
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
