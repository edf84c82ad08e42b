/// What a handler knows about its request besides the request itself.
public struct RequestContext: Sendable {
    /// The request id, echoed as `X-Request-Id` and on every log line.
    public var requestID: String
    /// The request's logger (carries the request id).
    public var logger: Logger
    /// Path parameters by name (`{provider}` → `provider`).
    public var parameters: [String: String]

    /// Creates a context.
    public init(requestID: String, logger: Logger, parameters: [String: String]) {
        self.requestID = requestID
        self.logger = logger
        self.parameters = parameters
    }
}

/// A route handler.
public typealias RouteHandler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// Maps method and path to a handler. Patterns are literal segments and `{name}` parameters.
public struct Router: Sendable {
    /// One registered route.
    public struct Route: Sendable {
        /// The method.
        public var method: String
        /// The pattern, also the metrics label.
        public var pattern: String
        /// Renders the errors the handler throws: the surface's that mounted the route.
        public var render: ErrorRenderer
        fileprivate var segments: [Substring]
        fileprivate var handler: RouteHandler
    }

    private var routes: [Route] = []
    /// The renderer given to routes added from now on (``BrokerApp`` sets it to each surface's as it mounts it).
    public var errorRenderer: ErrorRenderer

    /// Creates an empty router whose routes render errors with `errorRenderer` (by default a bare 500 that
    /// logs the cause).
    public init(errorRenderer: @escaping ErrorRenderer = Router.internalErrorRenderer) {
        self.errorRenderer = errorRenderer
    }

    /// Answers every error with a bodiless 500 and logs its cause.
    public static let internalErrorRenderer: ErrorRenderer = { error in
        RenderedError(response: HTTPResponse(status: 500), cause: "\(error)")
    }

    /// The routes added so far, in order: method and pattern (`{name}` for a parameter). Read-only, for checking
    /// the routes against their documentation.
    public var endpoints: [(method: String, pattern: String)] { routes.map { ($0.method, $0.pattern) } }

    /// Adds a route.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping RouteHandler) {
        routes.append(
            Route(
                method: method, pattern: pattern, render: errorRenderer, segments: pattern.split(separator: "/"),
                handler: handler))
    }

    /// The route for `method` and `path`, its parameters, and its handler. Where several patterns match, the
    /// one with more literal segments wins (`/v1/signin/password` over `/v1/signin/{provider}`).
    public func match(method: String, path: String) -> (route: Route, parameters: [String: String], handler: RouteHandler)? {
        let parts = path.split(separator: "/")
        var best: (route: Route, parameters: [String: String], literals: Int)?
        for route in routes where route.method == method && route.segments.count == parts.count {
            var parameters: [String: String] = [:]
            var literals = 0
            var matched = true
            for (segment, part) in zip(route.segments, parts) {
                if segment.hasPrefix("{") && segment.hasSuffix("}") {
                    parameters[String(segment.dropFirst().dropLast())] = String(part)
                } else if segment == part {
                    literals += 1
                } else {
                    matched = false
                    break
                }
            }
            if matched && literals > (best?.literals ?? -1) { best = (route, parameters, literals) }
        }
        return best.map { ($0.route, $0.parameters, $0.route.handler) }
    }
}
