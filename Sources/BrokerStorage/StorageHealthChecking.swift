/// A store that can say whether its storage answers right now: what `GET /readyz` asks.
public protocol StorageHealthChecking: Sendable {
    /// Returns when the storage answers; throws `AccountStoreError(.unavailable)` when it does not.
    func checkStorage() async throws
}
