import BrokerCore
public import BrokerHTTP
public import BrokerModel
/// Which web pages may drive the Firebase listener (contract section 11): the loopback origins, where web apps
/// under development run (`http://localhost[:port]`, `http://127.0.0.1[:port]`, `http://[::1][:port]`), and
/// the exact origins of `firebaseCompat.allowedOrigins`. A request carrying any other `Origin` is refused (403,
/// ``FirebaseError/originRefused``) by ``FirebaseListenerChecks`` before anything is counted or stored, and its
/// preflight gets the same 403 and no CORS header. For the origins it serves the listener answers preflights
/// (204, allowing the requested headers, as Firebase's Auth emulator does) and echoes `Access-Control-Allow-Origin`.
public struct FirebaseOriginPolicy: CrossOriginPolicy {
    /// The methods a preflight allows.
    public static let allowedMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    /// The request headers a preflight allows when it names none, or names them in a way not echoed back.
    public static let defaultAllowedHeaders =
        "Authorization, Content-Type, X-Client-Version, X-Firebase-GMPID, X-Firebase-Client, X-Goog-Api-Key"
    /// The response headers scripts may read.
    public static let exposedHeaders = "X-Request-Id, Retry-After"
    /// How long (seconds) a browser may cache a preflight's answer.
    public static let maxAge = 600

    /// The configured origins besides the loopback ones.
    public let allowedOrigins: Set<String>
    let listener: FirebaseSurface.Listener

    /// The policy of `surface`'s listener and settings.
    public init(surface: FirebaseSurface) {
        self.init(allowedOrigins: surface.settings.allowedOrigins, listener: surface.listener)
    }

    /// A policy serving the loopback origins and `allowedOrigins`, on the listener at `listener`.
    public init(allowedOrigins: [String], listener: FirebaseSurface.Listener) {
        self.allowedOrigins = Set(allowedOrigins)
        self.listener = listener
    }

    /// Whether pages of `origin` (an `Origin` header's value) may call the listener.
    public func serves(_ origin: String) -> Bool {
        allowedOrigins.contains(origin) || Self.isLoopback(origin: origin)
    }

    /// Refuses a request whose `Origin` the listener does not serve (one without `Origin` is not a web page's).
    public func check(_ request: HTTPRequest) throws {
        if let origin = request.headers["origin"], !serves(origin) { throw FirebaseError.originRefused }
    }

    /// 204 with the allow headers for a served origin's preflight; 403 for another origin's (or under a `Host`
    /// that is not the listener's); nil for an `OPTIONS` without `Origin` or `Access-Control-Request-Method`.
    public func preflightResponse(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", request.headers["access-control-request-method"] != nil,
            let origin = request.headers["origin"]
        else { return nil }
        guard let host = request.headers["host"], FirebaseListenerChecks.allows(host: host, listener: listener) else {
            return FirebaseError.hostRefused.response
        }
        guard serves(origin) else { return FirebaseError.originRefused.response }
        let requested = request.headers["access-control-request-headers"].flatMap(Self.echoable)
        return HTTPResponse(
            status: 204,
            headers: [
                ("Access-Control-Allow-Origin", origin), ("Access-Control-Allow-Methods", Self.allowedMethods),
                ("Access-Control-Allow-Headers", requested ?? Self.defaultAllowedHeaders),
                ("Access-Control-Max-Age", String(Self.maxAge)),
                ("Vary", "Origin, Access-Control-Request-Headers"),
            ])
    }

    /// `Vary: Origin` on every response, and for a served origin `Access-Control-Allow-Origin` echoing it.
    public func addHeaders(to response: inout HTTPResponse, for request: HTTPRequest) {
        if response.header("Vary") == nil { response.headers.append(("Vary", "Origin")) }
        guard let origin = request.headers["origin"], serves(origin),
            response.header("Access-Control-Allow-Origin") == nil
        else { return }
        response.headers.append(("Access-Control-Allow-Origin", origin))
        response.headers.append(("Access-Control-Expose-Headers", Self.exposedHeaders))
    }

    /// Whether `origin` is `http://localhost`, `http://127.0.0.1` or `http://[::1]`, with or without a port
    /// (1 to 65535), and nothing else.
    public static func isLoopback(origin: String) -> Bool {
        guard origin.utf8.count <= 64, origin.hasPrefix("http://") else { return false }
        let authority = origin.dropFirst("http://".count)
        for host in ["localhost", "127.0.0.1", "[::1]"] where authority.hasPrefix(host) {
            let rest = authority.dropFirst(host.count)
            if rest.isEmpty { return true }
            guard rest.hasPrefix(":") else { return false }
            let port = rest.dropFirst()
            guard !port.isEmpty, port.count <= 5, port.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let number = Int(port), (1...65_535).contains(number)
            else { return false }
            return true
        }
        return false
    }

    /// The requested headers as given, when they are a plain list of header names (at most 1,024 bytes).
    static func echoable(_ requested: String) -> String? {
        guard !requested.isEmpty, requested.utf8.count <= 1024,
            requested.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ",")
                    || byte == UInt8(ascii: " ")
            })
        else { return nil }
        return requested
    }
}
