import Foundation

/// Failed password sign-ins, kept per email so a lockout holds across instances and restarts.
public protocol LoginAttemptStore: Sendable {
    /// Records a failed attempt for `emailKey` (the lower-cased email) at `date`; failures before
    /// `forgetBefore` may be purged.
    func recordLoginFailure(emailKey: String, at date: Date, forgetBefore: Date) async throws
    /// The failures for `emailKey` since `date`, oldest first.
    func loginFailures(emailKey: String, since date: Date) async throws -> [Date]
    /// Forgets the failures for `emailKey` (after a successful sign-in).
    func clearLoginFailures(emailKey: String) async throws
}
