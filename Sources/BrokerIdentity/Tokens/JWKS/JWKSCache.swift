public import BrokerCrypto
public import BrokerModel
public import Foundation

/// The signing keys (RSA and P-256) of one provider's JWKS URL, cached by a ``ProviderDocumentCache``.
///
/// - Keys live as long as the response's `Cache-Control: max-age` says (an hour without one).
/// - At most one fetch is in flight; concurrent callers wait for it.
/// - A `kid` not in a fresh set triggers at most one refetch per 30 s. Only those refetches count against the
///   limit: a key the provider starts signing with right after a scheduled fetch (the first one included) is
///   picked up at once.
/// - When the provider cannot be reached, the keys already held keep verifying.
/// - Nothing is fetched from any URL but the configured one (never a URL named in a token).
public final class JWKSCache: RSAKeySource {
    /// The default lifetime of a fetched key set.
    public static let defaultMaxAge: TimeInterval = ProviderDocumentCache<JWKSet>.defaultMaxAge
    /// The shortest interval between refetches caused by unknown `kid`s.
    public static let unknownKeyRefetchInterval: TimeInterval = ProviderDocumentCache<JWKSet>.missRefetchInterval

    private let sets: ProviderDocumentCache<JWKSet>

    /// Creates a cache for `url`; `provider` labels metrics and logs.
    public init(url: String, provider: String, client: any HTTPClient, clock: any Clock, metrics: Metrics, logger: Logger) {
        sets = ProviderDocumentCache(
            url: url, call: "jwks", refreshMetric: "broker_jwks_refreshes_total", provider: provider, client: client,
            clock: clock, metrics: metrics, logger: logger, parse: JWKSet.init(parsing:))
    }

    /// The RSA key with id `kid`; nil when the provider publishes none (see ``verificationKey(id:)``).
    public func key(id kid: KeyID) async throws -> RSAPublicKey? {
        guard case .rsa(let key)? = try await verificationKey(id: kid) else { return nil }
        return key
    }

    /// The key with id `kid`; nil when the provider does not publish it. Throws ``ProviderError`` unavailable
    /// only when no keys were ever fetched or a refetch for an unknown `kid` failed.
    public func verificationKey(id kid: KeyID) async throws -> ProviderKey? {
        try await sets.current { $0.verificationKeys[kid] == nil }.verificationKeys[kid]
    }
}
