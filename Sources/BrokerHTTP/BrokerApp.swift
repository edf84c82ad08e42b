public import BrokerCore
import BrokerCrypto
public import BrokerModel
import Foundation

/// The broker's HTTP application: the surfaces it serves, composed on one router, inside one middleware that
/// gives every request an id, one log line and its metrics.
public struct BrokerApp: Sendable {
    private let trustedProxies: TrustedProxies
    private let logger: Logger
    private let metrics: Metrics
    private var router: Router
    private let fallback: any Surface
    private let cors: any CrossOriginPolicy

    /// Creates the application serving `surfaces`; the first renders answers to unmatched requests. Its
    /// cross-origin rules are those of the first surface that has its own (``Surface/crossOrigin``), else
    /// `cors.allowedOrigins`.
    public init(services: BrokerServices, surfaces: [any Surface]) {
        trustedProxies = services.config.trustedProxies
        logger = services.logger
        metrics = services.metrics
        cors =
            surfaces.lazy.compactMap(\.crossOrigin).first
            ?? CORSPolicy(allowedOrigins: services.config.corsAllowedOrigins)
        fallback = surfaces.first ?? NativeSurface(services: services)
        router = Router()
        for surface in surfaces {
            var group = Router(errorRenderer: { surface.render($0) })
            surface.mount(on: &group)
            router.add(group)
        }
    }

    /// The response to `error` in the dialect of the surface this application serves first (the one that answers
    /// unmatched requests), for what the HTTP server refuses itself before any route runs (a body over the
    /// limit); the server adds `X-Request-Id`.
    public func render(_ error: any Error) -> HTTPResponse { fallback.render(error).response }

    /// The routes the surfaces mounted: method and pattern (`{name}` for a parameter), as the router matches them.
    public var routes: [(method: String, pattern: String)] { router.endpoints }

    /// Handles one request; never throws: errors become the surface's error bodies.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        var request = request
        request.clientAddress = trustedProxies.clientAddress(
            peer: request.peerAddress, forwardedFor: request.headers["x-forwarded-for"])
        let requestID = RequestID.from(header: request.headers["x-request-id"])
        let logger = self.logger.with(["requestId": requestID])
        var response: HTTPResponse
        var route = "unmatched"
        var cause: String?
        if let preflight = cors.preflightResponse(to: request) {
            response = preflight
            route = "preflight"
        } else if let match = router.match(method: request.method, path: request.path) {
            route = match.route.pattern
            // The audit events this request causes record where it came from.
            let origin = RequestOrigin(clientAddress: request.clientAddress, userAgent: request.headers["user-agent"])
            do {
                let context = RequestContext(requestID: requestID, logger: logger, parameters: match.parameters)
                response = try await RequestOrigin.$current.withValue(origin) {
                    try await match.handler(request, context)
                }
            } catch {
                let rendered = match.route.render(error)
                response = rendered.response
                cause = rendered.cause
            }
        } else {
            response = fallback.render(RequestError.notFound).response
        }
        response.headers.append(("X-Request-Id", requestID))
        cors.addHeaders(to: &response, for: request)
        let elapsed = started.duration(to: .now)
        // Whole hundredths of a millisecond, so the logged number has at most two decimals.
        let hundredths = elapsed.components.seconds * 100_000 + elapsed.components.attoseconds / 10_000_000_000_000
        metrics.increment("broker_http_requests_total", labels: ["route": route, "status": String(response.status)])
        var fields: [(key: String, value: LogValue)] = [
            ("method", .string(request.method)), ("route", .string(route)), ("status", .integer(response.status)),
            ("durationMs", .double(Double(hundredths) / 100)),
        ]
        fields.reserveCapacity(7)
        if !request.clientAddress.isEmpty { fields.append(("clientAddress", .string(request.clientAddress))) }
        if let agent = request.headers["user-agent"], !agent.isEmpty {
            fields.append(("userAgent", .string(String(agent.prefix(256)))))
        }
        if let cause { fields.append(("cause", .string(cause))) }
        logger.log(response.status >= 500 ? .error : .info, "request", fields: fields)
        return response
    }
}
