public import BrokerCrypto
public import Foundation

/// The signing keys (RSA and P-256) of one provider's JWKS URL, cached.
///
/// - Keys live as long as the response's `Cache-Control: max-age` says (an hour without one).
/// - At most one fetch is in flight; concurrent callers wait for it.
/// - A `kid` not in a fresh set triggers at most one refetch per 30 s. Only those refetches count against the
///   limit: a key the provider starts signing with right after a scheduled fetch (the first one included) is
///   picked up at once.
/// - When the provider cannot be reached, the keys already held keep verifying.
/// - Nothing is fetched from any URL but the configured one (never a URL named in a token).
public actor JWKSCache: RSAKeySource {
    /// The default lifetime of a fetched key set.
    public static let defaultMaxAge: TimeInterval = 3600
    /// The shortest interval between refetches caused by unknown `kid`s.
    public static let unknownKeyRefetchInterval: TimeInterval = 30

    private let url: String
    private let provider: String
    private let client: any HTTPClient
    private let clock: any Clock
    private let metrics: Metrics
    private let logger: Logger

    private var keys: [KeyID: ProviderKey] = [:]
    private var fetchedOnce = false
    private var expiresAt = Date.distantPast
    /// When the last refetch caused by an unknown `kid` started; scheduled fetches leave it alone.
    private var lastUnknownKeyRefetch = Date.distantPast
    private var inFlight: Task<Void, any Error>?

    /// Creates a cache for `url`; `provider` labels metrics and logs.
    public init(url: String, provider: String, client: any HTTPClient, clock: any Clock, metrics: Metrics, logger: Logger) {
        self.url = url
        self.provider = provider
        self.client = client
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// The RSA key with id `kid`; nil when the provider publishes none (see ``verificationKey(id:)``).
    public func key(id kid: KeyID) async throws -> RSAPublicKey? {
        guard case .rsa(let key)? = try await verificationKey(id: kid) else { return nil }
        return key
    }

    /// The key with id `kid`; nil when the provider does not publish it. Throws ``ProviderError`` unavailable
    /// only when no keys were ever fetched or a refetch for an unknown `kid` failed.
    public func verificationKey(id kid: KeyID) async throws -> ProviderKey? {
        let now = clock.now
        if now >= expiresAt {
            do {
                try await refresh()
            } catch where fetchedOnce {
                // Stale keys keep verifying while the provider is down.
                logger.warning("jwks refresh failed; using cached keys", metadata: ["provider": provider])
            }
        } else if keys[kid] == nil {
            if inFlight != nil {
                // A fetch is under way (another caller's refetch): its keys answer this caller too.
                try await refresh()
            } else if now.timeIntervalSince(lastUnknownKeyRefetch) >= JWKSCache.unknownKeyRefetchInterval {
                lastUnknownKeyRefetch = now
                try await refresh()
            }
        }
        return keys[kid]
    }

    private func refresh() async throws {
        if let inFlight {
            try await inFlight.value
            return
        }
        let task = Task { try await self.fetch() }
        inFlight = task
        defer { inFlight = nil }
        try await task.value
    }

    private func fetch() async throws {
        let started = Date()
        do {
            let response = try await client.send(HTTPClientRequest(url: url))
            metrics.observe(
                "broker_provider_call_seconds", labels: ["provider": provider, "call": "jwks"],
                seconds: Date().timeIntervalSince(started))
            guard response.status == 200 else {
                throw ProviderError(.unavailable, "jwks answered \(response.status)")
            }
            let set = try JWKSet(parsing: response.body)
            keys = set.verificationKeys
            fetchedOnce = true
            expiresAt = clock.now + JWKSCache.maxAge(response.headers["cache-control"])
            metrics.increment("broker_jwks_refreshes_total", labels: ["provider": provider, "outcome": "ok"])
        } catch {
            metrics.increment("broker_jwks_refreshes_total", labels: ["provider": provider, "outcome": "error"])
            // With keys in hand, try again after a pause instead of making every sign-in wait on a dead provider.
            if fetchedOnce { expiresAt = clock.now + JWKSCache.unknownKeyRefetchInterval }
            if let error = error as? ProviderError { throw error }
            throw ProviderError(.unavailable, "jwks fetch failed: \(error)")
        }
    }

    /// The `max-age` of a Cache-Control value, or the default.
    static func maxAge(_ cacheControl: String?) -> TimeInterval {
        guard let cacheControl else { return defaultMaxAge }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1]), seconds >= 0 {
                return TimeInterval(min(seconds, 86_400))
            }
        }
        return defaultMaxAge
    }
}
