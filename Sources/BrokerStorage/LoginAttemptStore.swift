public import Foundation

/// Password sign-in attempts, kept per email so a lockout holds across instances and restarts.
public protocol LoginAttemptStore: Sendable {
    /// In one transaction: unless `limit` attempts for `emailKey` are recorded since `date - window`, records
    /// one at `date` (counted as a failure until cleared) and returns nil; otherwise records nothing and
    /// returns when the oldest counted attempt leaves the window. Attempts older than the window are purged.
    func reserveLoginAttempt(emailKey: String, at date: Date, window: TimeInterval, limit: Int) async throws -> Date?
    /// Forgets the one attempt recorded for `emailKey` at `date` (one that never got to check a password).
    func releaseLoginAttempt(emailKey: String, at date: Date) async throws
    /// The attempts recorded for `emailKey` since `date`, oldest first.
    func loginFailures(emailKey: String, since date: Date) async throws -> [Date]
    /// Forgets the attempts for `emailKey` (after a successful sign-in).
    func clearLoginFailures(emailKey: String) async throws
}
