import BrokerModel
import BrokerStorage
import Foundation

/// A password check counted toward its email's lockout (contract section 4), the one a password sign-in and the
/// verification page's password proof share: the attempt is reserved (as a failure) before the password is
/// checked, atomically with the count, so concurrent guesses cannot all slip under the limit; a locked email is
/// refused before any hashing; an attempt that never got to check a password (the hasher was overloaded) is
/// released.
struct CountedPasswordCheck: Sendable {
    let attempts: any LoginAttemptStore
    let passwords: any PasswordHashing

    /// Whether `password` matches `hash`, or, when there is none, `decoy` (the same work for an unknown email;
    /// false without a decoy). The attempt stays counted as a failure until the caller clears it.
    func matches(
        _ password: String, against hash: String?, decoy: String? = nil, emailKey: String, at now: Date
    ) async throws -> Bool {
        if let unlocksAt = try await attempts.reserveLoginAttempt(
            emailKey: emailKey, at: now, window: AccountService.lockoutWindow, limit: AccountService.lockoutThreshold)
        {
            throw AccountError.tooManyAttempts(until: unlocksAt, from: now, window: AccountService.lockoutWindow)
        }
        guard let checked = hash ?? decoy else { return false }
        do {
            return try await passwords.verify(password, against: checked) && hash != nil
        } catch {
            // No password was checked: this attempt must not count towards the lockout.
            try? await attempts.releaseLoginAttempt(emailKey: emailKey, at: now)
            throw error
        }
    }
}
