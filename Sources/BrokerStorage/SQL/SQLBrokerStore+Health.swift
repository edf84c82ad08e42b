/// ``StorageHealthChecking``: a trivial query through the database's pool.
extension SQLBrokerStore {
    /// Pings the database; a database that is down or busy throws `AccountStoreError(.unavailable)`.
    public func checkStorage() async throws {
        try await Self.translatingErrors { try await self.database.ping() }
    }
}
