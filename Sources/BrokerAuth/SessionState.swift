import Foundation

/// What ``BrokerAuth`` answers synchronously (the user, the custom token) and the streams it reports changes
/// to, behind one lock. Only ``SessionKeeper`` changes it, so its changes arrive in the order they happened.
final class SessionState: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var user: BrokerUser?
    private var customToken: String?
    private var listeners: [UUID: AsyncStream<SessionChange>.Continuation] = [:]

    init(user: BrokerUser?) { self.user = user }

    var currentUser: BrokerUser? { lock.locked { user } }
    var currentCustomToken: String? { lock.locked { customToken } }

    /// Sets the user (and the custom token, when `customToken` is not `.none`) and reports `change`.
    func publish(user: BrokerUser?, customToken: String?? = .none, change: SessionChange?) {
        let listeners = lock.locked {
            self.user = user
            if case .some(let token) = customToken { self.customToken = token }
            return Array(self.listeners.values)
        }
        if let change { for listener in listeners { listener.yield(change) } }
    }

    /// A new stream of the changes from now on.
    func changes() -> AsyncStream<SessionChange> {
        var made: AsyncStream<SessionChange>.Continuation?
        let stream = AsyncStream<SessionChange> { made = $0 }  // runs at once
        guard let continuation = made else { return stream }
        let id = UUID()
        lock.locked { listeners[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.locked { self.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    deinit {
        for listener in listeners.values { listener.finish() }
    }
}

extension NSLock {
    /// Runs `body` holding the lock (`NSLocking.withLock` is newer than iOS 15 on Apple platforms).
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
