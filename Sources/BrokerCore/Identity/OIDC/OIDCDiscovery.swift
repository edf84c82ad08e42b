import Foundation

/// An OpenID Connect issuer's discovery document (`{issuer}/.well-known/openid-configuration`), cached with the
/// JWKS cache's rules:
///
/// - fetched at start, in the background (``prefetch()``; `check-config` builds providers without fetching
///   anything), then kept as long as `Cache-Control: max-age` says (an hour without one, a day at most);
/// - one fetch in flight; concurrent callers wait for it;
/// - when a refresh fails, the document in hand keeps serving and the next try comes 30 s later; when there was
///   never one, every sign-in tries again (one at a time) and fails as unavailable;
/// - the document's `issuer` must equal the configured issuer exactly (else ``ProviderError`` misconfigured: the
///   entry names another issuer than the one answering), and its `jwks_uri` must be an `https://` URL (or
///   `http://` with `allowInsecureProviderUrls`), else the document is refused like an unreachable one.
public actor OIDCDiscovery {
    /// The configured issuer.
    public let issuer: String
    /// `issuer` (without a trailing `/`) + `/.well-known/openid-configuration`.
    public let url: String
    private let provider: String
    private let client: any HTTPClient
    private let clock: any Clock
    private let metrics: Metrics
    private let logger: Logger
    private let allowInsecureURLs: Bool

    private var jwksURL: String?
    private var expiresAt = Date.distantPast
    private var inFlight: Task<Void, any Error>?

    /// Creates the discovery of `issuer`; `provider` labels metrics and logs.
    public init(
        issuer: String, provider: String, client: any HTTPClient, clock: any Clock, metrics: Metrics, logger: Logger,
        allowInsecureURLs: Bool
    ) {
        self.issuer = issuer
        self.url = (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
        self.provider = provider
        self.client = client
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.allowInsecureURLs = allowInsecureURLs
    }

    /// The issuer's `jwks_uri`; throws ``ProviderError`` (unavailable, or misconfigured for another issuer) when
    /// no document was ever accepted.
    public func jwksURI() async throws -> String {
        if clock.now >= expiresAt {
            do {
                try await refresh()
            } catch where jwksURL != nil {
                logger.warning("discovery refresh failed; using the cached document", metadata: ["provider": provider])
            }
        }
        guard let jwksURL else { throw ProviderError(.unavailable, "\(provider): no discovery document") }
        return jwksURL
    }

    /// Fetches the document now (at start); a failure is logged and left for the first sign-in to retry.
    public func prefetch() async {
        do {
            _ = try await jwksURI()
        } catch {
            logger.warning("discovery fetch failed at start", metadata: ["provider": provider, "error": "\(error)"])
        }
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
            let response = try await client.send(HTTPClientRequest(url: url, headers: [("Accept", "application/json")]))
            metrics.observe(
                "broker_provider_call_seconds", labels: ["provider": provider, "call": "discovery"],
                seconds: Date().timeIntervalSince(started))
            guard response.status == 200 else { throw ProviderError(.unavailable, "discovery answered \(response.status)") }
            guard let document = JSONValue.parse(response.body)?.objectValue else {
                throw ProviderError(.unavailable, "discovery document is not a JSON object")
            }
            guard document["issuer"]?.stringValue == issuer else {
                throw ProviderError(.misconfigured, "discovery document names another issuer")
            }
            guard let uri = document["jwks_uri"]?.stringValue, OIDCDiscovery.isAllowedURL(uri, insecure: allowInsecureURLs)
            else { throw ProviderError(.unavailable, "discovery document has no usable jwks_uri") }
            jwksURL = uri
            expiresAt = clock.now + JWKSCache.maxAge(response.headers["cache-control"])
            metrics.increment("broker_discovery_refreshes_total", labels: ["provider": provider, "outcome": "ok"])
        } catch {
            metrics.increment("broker_discovery_refreshes_total", labels: ["provider": provider, "outcome": "error"])
            if jwksURL != nil { expiresAt = clock.now + JWKSCache.unknownKeyRefetchInterval }
            if let error = error as? ProviderError { throw error }
            throw ProviderError(.unavailable, "discovery fetch failed: \(error)")
        }
    }

    /// Whether `text` is an absolute `https://` URL (or `http://` when `insecure`) with a host, as config URLs.
    static func isAllowedURL(_ text: String, insecure: Bool) -> Bool {
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty,
            components.fragment == nil
        else { return false }
        return scheme == "https" || (insecure && scheme == "http")
    }
}
