public import BrokerModel

extension ProviderRegistry {
    /// The outbox handlers the enabled providers deliver their jobs with (``OutboxHandlerProviding``).
    public var outboxHandlers: [(OutboxKind, any OutboxHandling)] {
        all.compactMap { $0 as? any OutboxHandlerProviding }.flatMap { provider in
            provider.outboxHandlers.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value) }
        }
    }
}
