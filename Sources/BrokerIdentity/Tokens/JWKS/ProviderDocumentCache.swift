public import BrokerModel
public import Foundation

/// One document a provider publishes at a fixed URL (a JWKS, an OpenID discovery document), fetched and cached
/// with one set of rules for all of them:
///
/// - kept as long as the response's `Cache-Control: max-age` says (an hour without one, a day at most);
/// - at most one fetch in flight; concurrent callers wait for it and share its answer;
/// - when a refresh fails, the document in hand keeps serving and the next try comes 30 s later; when there was
///   never one, the failure is the caller's (``ProviderError`` unavailable, or what `parse` threw);
/// - a caller that finds the fresh document lacking (a JWKS without the token's `kid`) may have it refetched, at
///   most once per ``missRefetchInterval`` (a fetch already under way answers it at once);
/// - nothing is fetched from any URL but the one given.
public actor ProviderDocumentCache<Document: Sendable> {
    /// The default lifetime of a fetched document.
    public static var defaultMaxAge: TimeInterval { 3600 }
    /// The pause after a failed refresh while a document is held, and the shortest interval between refetches
    /// for a lacking document.
    public static var missRefetchInterval: TimeInterval { 30 }

    /// Where the document is fetched from.
    public nonisolated let url: String
    private let headers: [(name: String, value: String)]
    private let call: String
    private let refreshMetric: String
    private let provider: String
    private let client: any HTTPClient
    private let clock: any Clock
    private let metrics: Metrics
    private let logger: Logger
    private let parse: @Sendable ([UInt8]) throws -> Document

    private var document: Document?
    private var expiresAt = Date.distantPast
    /// When the last refetch for a lacking document started; scheduled fetches leave it alone.
    private var lastMissRefetch = Date.distantPast
    private var inFlight: Task<Void, any Error>?

    /// A cache of the document at `url`, read by `parse` from a 200 answer's body (throwing ``ProviderError`` when
    /// it is not one). `call` names it in `broker_provider_call_seconds` and errors (`jwks`); `refreshMetric`
    /// counts its fetches by outcome; `provider` labels both and the logs.
    public init(
        url: String, headers: [(name: String, value: String)] = [], call: String, refreshMetric: String,
        provider: String, client: any HTTPClient, clock: any Clock, metrics: Metrics, logger: Logger,
        parse: @escaping @Sendable ([UInt8]) throws -> Document
    ) {
        self.url = url
        self.headers = headers
        self.call = call
        self.refreshMetric = refreshMetric
        self.provider = provider
        self.client = client
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.parse = parse
    }

    /// The document: the cached one while fresh (refetched first, within the limit, when `isLacking` says it
    /// lacks what the caller needs), else a fresh fetch, else the stale one when the fetch fails.
    public func current(isLacking: (Document) -> Bool = { _ in false }) async throws -> Document {
        let now = clock.now
        if now >= expiresAt {
            do {
                try await refresh()
            } catch where document != nil {
                logger.warning("\(call) refresh failed; using the cached document", metadata: ["provider": provider])
            }
        } else if let document, isLacking(document) {
            if inFlight != nil {
                // A fetch is under way (another caller's refetch): its document answers this caller too.
                try await refresh()
            } else if now.timeIntervalSince(lastMissRefetch) >= Self.missRefetchInterval {
                lastMissRefetch = now
                try await refresh()
            }
        }
        guard let document else { throw ProviderError(.unavailable, "\(call): no document") }
        return document
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
            let response = try await client.send(HTTPClientRequest(url: url, headers: headers))
            metrics.observe(
                "broker_provider_call_seconds", labels: ["provider": provider, "call": call],
                seconds: Date().timeIntervalSince(started))
            guard response.status == 200 else {
                throw ProviderError(.unavailable, "\(call) answered \(response.status)")
            }
            document = try parse(response.body)
            expiresAt = clock.now + Self.maxAge(response.headers["cache-control"])
            metrics.increment(refreshMetric, labels: ["provider": provider, "outcome": "ok"])
        } catch {
            metrics.increment(refreshMetric, labels: ["provider": provider, "outcome": "error"])
            // With a document in hand, try again after a pause instead of making every sign-in wait on a dead
            // provider.
            if document != nil { expiresAt = clock.now + Self.missRefetchInterval }
            if let error = error as? ProviderError { throw error }
            throw ProviderError(.unavailable, "\(call) fetch failed: \(error)")
        }
    }

    /// The `max-age` of a Cache-Control value (a day at most), or ``defaultMaxAge``.
    public static func maxAge(_ cacheControl: String?) -> TimeInterval {
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
