/// ``StorageHealthChecking``: memory is always there.
extension MemoryBrokerStore: StorageHealthChecking {
    /// Always ready.
    public nonisolated func checkStorage() async throws {}
}
