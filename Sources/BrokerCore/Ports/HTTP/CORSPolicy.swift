public import BrokerModel

/// Cross-origin access for browser companion apps (web, Flutter web): `cors.allowedOrigins` in the config, exact
/// origins only, off by default. An allowed origin's preflight (`OPTIONS` with `Access-Control-Request-Method`)
/// gets 204 with the methods and headers the API takes, and its requests get `Access-Control-Allow-Origin`
/// echoing it. Any other origin gets no CORS header at all, so the browser refuses to hand it the response.
/// The admin API never answers cross-origin: its bearer token does not belong in a browser app.
public struct CORSPolicy: Sendable {
    /// The origins allowed, exactly as browsers send them (`https://app.example.com`, no path, no slash).
    public let allowedOrigins: Set<String>

    /// The methods a preflight allows.
    public static let allowedMethods = "GET, POST, PATCH, DELETE"
    /// The request headers a preflight allows.
    public static let allowedHeaders = "Authorization, Content-Type, X-Request-Id"
    /// The response headers scripts may read.
    public static let exposedHeaders = "X-Request-Id, Retry-After"
    /// How long (seconds) a browser may cache a preflight's answer.
    public static let maxAge = 600

    /// Creates a policy; an empty set turns CORS off.
    public init(allowedOrigins: [String]) {
        self.allowedOrigins = Set(allowedOrigins)
    }

    /// Whether any origin is allowed.
    public var isEnabled: Bool { !allowedOrigins.isEmpty }

    /// The answer to a preflight from an allowed origin, or nil (the request goes on as any other would).
    public func preflightResponse(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", request.headers["access-control-request-method"] != nil,
            let origin = allowedOrigin(of: request)
        else { return nil }
        return HTTPResponse(
            status: 204,
            headers: [
                ("Access-Control-Allow-Origin", origin), ("Access-Control-Allow-Methods", CORSPolicy.allowedMethods),
                ("Access-Control-Allow-Headers", CORSPolicy.allowedHeaders),
                ("Access-Control-Max-Age", String(CORSPolicy.maxAge)), ("Vary", "Origin"),
            ])
    }

    /// Adds the CORS headers a response to `request` carries: `Vary: Origin` whenever CORS is on (so a cache
    /// never serves one origin's answer to another), and the allow headers for an allowed origin.
    public func addHeaders(to response: inout HTTPResponse, for request: HTTPRequest) {
        guard isEnabled, !CORSPolicy.isAdmin(request.path) else { return }
        if response.header("Vary") == nil { response.headers.append(("Vary", "Origin")) }
        guard let origin = allowedOrigin(of: request), response.header("Access-Control-Allow-Origin") == nil else {
            return
        }
        response.headers.append(("Access-Control-Allow-Origin", origin))
        response.headers.append(("Access-Control-Expose-Headers", CORSPolicy.exposedHeaders))
    }

    /// The request's `Origin` when it is exactly one of the allowed origins and the path is not the admin API.
    func allowedOrigin(of request: HTTPRequest) -> String? {
        guard let origin = request.headers["origin"], allowedOrigins.contains(origin), !CORSPolicy.isAdmin(request.path)
        else { return nil }
        return origin
    }

    static func isAdmin(_ path: String) -> Bool { path == "/admin" || path.hasPrefix("/admin/") }

    /// Checks a configured origin: `http(s)://host[:port]` with nothing after, as browsers write it.
    public static func validate(_ origin: String, field: String) throws {
        let parts = origin.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "https:" || parts[0] == "http:", parts[1].isEmpty, !parts[2].isEmpty,
            !parts[2].contains("@"), !origin.contains("?"), !origin.contains("#"), !origin.contains("*"),
            origin == origin.lowercased()
        else {
            throw ConfigError(
                field: field,
                "\"\(origin)\" must be an exact origin: http(s)://host[:port], lower case, no path, slash or wildcard")
        }
    }
}
