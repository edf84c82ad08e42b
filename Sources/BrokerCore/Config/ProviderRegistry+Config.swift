public import BrokerIdentity

extension ProviderRegistry {
    /// Builds every enabled provider of `config` with `catalog`'s factories; throws ``ConfigError`` naming the first
    /// bad field.
    public init(config: BrokerConfig, catalog: ProviderCatalog, context: ProviderContext) throws {
        try self.init(entries: config.providers, catalog: catalog, context: context)
    }
}
