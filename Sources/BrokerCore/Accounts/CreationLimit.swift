import BrokerModel
import BrokerStorage
import Foundation

/// The per-key limit on accounts made without a secret (guests per client address, and passwordless sign-ups under
/// keys of their own, so that the two are counted apart), over an hour, counted by the store
/// (``GuestStore/reserveGuestCreation(address:at:window:limit:)``).
enum CreationLimit {
    /// The window: an hour.
    static let window: TimeInterval = 3600

    /// Counts one account made under `key` at `now`, or throws `AccountError(.tooManyAttempts)` with the seconds
    /// until one may be made when `limit` were made under it within the window.
    static func reserve(_ key: String, limit: Int, at now: Date, in store: any GuestStore) async throws {
        if let allowedAt = try await store.reserveGuestCreation(address: key, at: now, window: window, limit: limit) {
            throw AccountError.tooManyAttempts(until: allowedAt, from: now, window: window)
        }
    }
}
