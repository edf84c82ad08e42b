/// ``StorageHealthChecking``: memory is always there.
extension MemoryBrokerStore {
    /// Always ready.
    public nonisolated func checkStorage() async throws {}
}
