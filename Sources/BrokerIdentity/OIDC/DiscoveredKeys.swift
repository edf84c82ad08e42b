import BrokerModel

/// The keys of an issuer found by discovery: the JWKS at the document's current `jwks_uri`, cached by a
/// ``JWKSCache`` (replaced when the document names another URI).
actor DiscoveredKeys: VerificationKeySource {
    private let discovery: OIDCDiscovery
    private let context: ProviderContext
    private let provider: String
    private var cache: (url: String, keys: JWKSCache)?

    init(discovery: OIDCDiscovery, provider: String, context: ProviderContext) {
        self.discovery = discovery
        self.provider = provider
        self.context = context
    }

    func verificationKey(id kid: KeyID) async throws -> ProviderKey? {
        let url = try await discovery.jwksURI()
        let keys: JWKSCache
        if let cache, cache.url == url {
            keys = cache.keys
        } else {
            keys = JWKSCache(
                url: url, provider: provider, client: context.httpClient, clock: context.clock,
                metrics: context.metrics, logger: context.logger)
            cache = (url, keys)
        }
        return try await keys.verificationKey(id: kid)
    }
}
