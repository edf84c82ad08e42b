public import BrokerModel
import Foundation

/// An OpenID Connect issuer's discovery document (`{issuer}/.well-known/openid-configuration`), cached by a
/// ``ProviderDocumentCache`` (the JWKS cache's rules):
///
/// - fetched at start, in the background (``prefetch()``; `check-config` builds providers without fetching
///   anything), then kept as long as `Cache-Control: max-age` says (an hour without one, a day at most);
/// - one fetch in flight; concurrent callers wait for it;
/// - when a refresh fails, the document in hand keeps serving and the next try comes 30 s later; when there was
///   never one, every sign-in tries again (one at a time) and fails as unavailable;
/// - the document's `issuer` must equal the configured issuer exactly (else ``ProviderError`` misconfigured: the
///   entry names another issuer than the one answering), and its `jwks_uri` must be an `https://` URL (or
///   `http://` with `allowInsecureProviderUrls`), else the document is refused like an unreachable one.
public final class OIDCDiscovery: Sendable {
    /// The configured issuer.
    public let issuer: String
    /// `issuer` (without a trailing `/`) + `/.well-known/openid-configuration`.
    public let url: String
    private let provider: String
    private let logger: Logger
    /// The document's `jwks_uri`, as the cache holds it.
    private let documents: ProviderDocumentCache<String>

    /// Creates the discovery of `issuer`; `provider` labels metrics and logs.
    public init(
        issuer: String, provider: String, client: any HTTPClient, clock: any Clock, metrics: Metrics, logger: Logger,
        allowInsecureURLs: Bool
    ) {
        let url = (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
        self.issuer = issuer
        self.url = url
        self.provider = provider
        self.logger = logger
        documents = ProviderDocumentCache(
            url: url, headers: [("Accept", "application/json")], call: "discovery",
            refreshMetric: "broker_discovery_refreshes_total", provider: provider, client: client, clock: clock,
            metrics: metrics, logger: logger
        ) { body in
            try OIDCDiscovery.jwksURI(in: body, issuer: issuer, allowInsecureURLs: allowInsecureURLs)
        }
    }

    /// The issuer's `jwks_uri`; throws ``ProviderError`` (unavailable, or misconfigured for another issuer) when
    /// no document was ever accepted.
    public func jwksURI() async throws -> String {
        try await documents.current()
    }

    /// Fetches the document now (at start); a failure is logged and left for the first sign-in to retry.
    public func prefetch() async {
        do {
            _ = try await jwksURI()
        } catch {
            logger.warning("discovery fetch failed at start", metadata: ["provider": provider, "error": "\(error)"])
        }
    }

    /// The `jwks_uri` of a discovery document that names `issuer` exactly.
    static func jwksURI(in body: [UInt8], issuer: String, allowInsecureURLs: Bool) throws -> String {
        guard let document = JSONValue.parse(body)?.objectValue else {
            throw ProviderError(.unavailable, "discovery document is not a JSON object")
        }
        guard document["issuer"]?.stringValue == issuer else {
            throw ProviderError(.misconfigured, "discovery document names another issuer")
        }
        guard let uri = document["jwks_uri"]?.stringValue, isAllowedURL(uri, insecure: allowInsecureURLs) else {
            throw ProviderError(.unavailable, "discovery document has no usable jwks_uri")
        }
        return uri
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
