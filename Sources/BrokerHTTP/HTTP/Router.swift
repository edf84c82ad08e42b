import BrokerCore
public import BrokerModel

/// A route handler.
public typealias RouteHandler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// Maps method and path to a handler. Patterns are literal segments and `{name}` parameters. A router is also a
/// route group: a surface mounts its routes on a router of its own, made with its error renderer, and
/// ``BrokerApp`` adds the group to the application's (``add(_:)``), so no route depends on the order surfaces are
/// mounted in.
public struct Router: Sendable {
    /// One registered route.
    public struct Route: Sendable {
        /// The method.
        public var method: String
        /// The pattern, also the metrics label.
        public var pattern: String
        /// Renders the errors the handler throws: the surface's that mounted the route.
        public var render: ErrorRenderer
        fileprivate var segments: [Segment]
        fileprivate var handler: RouteHandler
    }

    /// What a route and a request must share to match: the method and the number of segments.
    private struct Shape: Hashable {
        var method: String
        var segments: Int
    }

    /// A pattern's segment, told apart once when the route is added rather than on every request.
    fileprivate enum Segment: Sendable {
        case literal(Substring)
        case parameter(String)

        init(_ text: Substring) {
            if text.hasPrefix("{") && text.hasSuffix("}") {
                self = .parameter(String(text.dropFirst().dropLast()))
            } else {
                self = .literal(text)
            }
        }
    }

    private var routes: [Route] = []
    /// The indices in `routes` of the routes of each method and number of segments, in the order added: the only
    /// routes a request can match, found with one look-up instead of a pass over every route.
    private var candidates: [Shape: [Int]] = [:]
    /// The renderer of this group's routes (the surface's that mounts them).
    public let errorRenderer: ErrorRenderer

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
        append(
            Route(
                method: method, pattern: pattern, render: errorRenderer,
                segments: pattern.split(separator: "/").map(Segment.init), handler: handler))
    }

    /// Adds every route of `group`, each keeping its group's renderer.
    public mutating func add(_ group: Router) {
        for route in group.routes { append(route) }
    }

    private mutating func append(_ route: Route) {
        candidates[Shape(method: route.method, segments: route.segments.count), default: []].append(routes.count)
        routes.append(route)
    }

    /// The route for `method` and `path`, its parameters, and its handler. Where several patterns match, the
    /// one with more literal segments wins (`/v1/signin/password` over `/v1/signin/{provider}`).
    public func match(method: String, path: String) -> (route: Route, parameters: [String: String], handler: RouteHandler)? {
        let parts = path.split(separator: "/")
        guard let indices = candidates[Shape(method: method, segments: parts.count)] else { return nil }
        var best: (index: Int, literals: Int)?
        for index in indices {
            guard let literals = Self.literalsMatched(routes[index].segments, parts) else { continue }
            if literals > (best?.literals ?? -1) { best = (index, literals) }
        }
        guard let best else { return nil }
        // Only the winner's parameters are collected.
        let route = routes[best.index]
        var parameters: [String: String] = [:]
        for case (.parameter(let name), let part) in zip(route.segments, parts) {
            parameters[name] = String(part)
        }
        return (route, parameters, route.handler)
    }

    /// The number of literal segments of a pattern whose literals all equal the path's `parts` at their places
    /// (as many segments as parts); nil when one differs.
    private static func literalsMatched(_ segments: [Segment], _ parts: [Substring]) -> Int? {
        var literals = 0
        for (segment, part) in zip(segments, parts) {
            guard case .literal(let text) = segment else { continue }
            guard text == part else { return nil }
            literals += 1
        }
        return literals
    }
}
