/// The enabled providers, each built and validated from its `providers.json` entry at start.
public struct ProviderRegistry: Sendable {
    /// Every provider the broker knows, by factory.
    nonisolated(unsafe) public static let factories: [any IdentityProviderFactory.Type] = [
        GoogleProvider.self, AppleProvider.self, KakaoProvider.self,
    ]

    private let providers: [ProviderID: any IdentityProvider]

    /// Builds every enabled provider; throws ``ConfigError`` naming the first bad field.
    public init(config: BrokerConfig, context: ProviderContext) throws {
        var providers: [ProviderID: any IdentityProvider] = [:]
        for name in config.providers.keys.sorted() {
            guard let entry = config.providers[name] else { continue }
            guard let factory = ProviderRegistry.factories.first(where: { $0.id.rawValue == name }) else {
                throw ConfigError(field: entry.path, "unknown provider (known: google, apple, kakao)")
            }
            guard try entry.bool("enabled", default: true) else { continue }
            providers[factory.id] = try factory.make(config: entry, context: context)
        }
        self.providers = providers
    }

    /// Wraps providers built elsewhere; for tests.
    public init(providers: [any IdentityProvider]) {
        var byID: [ProviderID: any IdentityProvider] = [:]
        for provider in providers { byID[provider.id] = provider }
        self.providers = byID
    }

    /// The enabled provider named `id`, nil when it is unknown or disabled.
    public func provider(_ id: ProviderID) -> (any IdentityProvider)? { providers[id] }

    /// The names of the enabled providers.
    public var enabled: [ProviderID] { providers.keys.sorted { $0.rawValue < $1.rawValue } }
}
