import BrokerCore
import BrokerIdentity
import BrokerModel
import Foundation

/// The admin console (contract section 12): its pages under `/admin/`, its sessions under
/// `/admin/v1/console/session`, and the admin API routes it needs beyond section 5.
extension AdminSurface {
    /// The headers of every console page and file: a strict CSP (no inline script or style, no framing).
    static let consoleHeaders: [(name: String, value: String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-cache"),
    ]

    /// Authenticates an admin request: the `Authorization` header as before; or, with none, a live console
    /// session's cookie, plus its CSRF token for a change. Unknown cookies count as failed admin
    /// authentications of the address, and the address's lockout applies to both.
    static func authorize(_ request: HTTPRequest, _ services: AdminSurface.Dependencies) async throws {
        guard request.headers["authorization"] == nil, services.config.consoleEnabled,
            ConsoleSessions.cookieValue(of: request) != nil
        else {
            try await services.adminGate.check(request)
            return
        }
        guard let sessions = await consoleSessions(services) else {
            try await services.adminGate.check(request)
            return
        }
        try await services.adminGate.checkNotLockedOut(request)
        guard try await sessions.session(of: request) != nil else {
            await services.adminGate.countFailure(of: request)
            throw APIError(401, "UNAUTHENTICATED", "The console session has ended; sign in again.")
        }
        if request.method != "GET" && request.method != "HEAD" && !ConsoleSessions.hasValidCSRFToken(request) {
            throw APIError(401, "UNAUTHENTICATED", "A change made with the console session needs its CSRF token.")
        }
    }

    /// The console's sessions, or nil when no admin token is configured (then no session authenticates).
    static func consoleSessions(_ services: AdminSurface.Dependencies) async -> ConsoleSessions? {
        await services.consoleSessions()
    }

    /// The console's sessions for a session route: 404 with the console off, 401 with no admin token.
    static func requireConsoleSessions(_ services: AdminSurface.Dependencies) async throws -> ConsoleSessions {
        guard services.config.consoleEnabled else { throw APIError.notFound }
        guard let sessions = await consoleSessions(services) else {
            throw APIError(401, "UNAUTHENTICATED", "The admin API is disabled: no admin token is configured.")
        }
        return sessions
    }

    /// Adds the console's pages and session routes, and the admin routes it reads, each handled by the method of
    /// that name below.
    func mountConsole(on router: inout Router) {
        let services = self.services
        /// An admin route, as ``mount(on:)`` registers them: authorized first, then only `query` allowed.
        func admin(_ method: String, _ pattern: String, _ query: Set<String>, _ handler: @escaping RouteHandler) {
            router.add(method, pattern) { request, context in
                try await AdminSurface.authorize(request, services)
                try request.allowOnlyQuery(query)
                return try await handler(request, context)
            }
        }
        router.add("POST", "/admin/v1/console/session", beginConsoleSession)
        router.add("GET", "/admin/v1/console/session", showConsoleSession)
        router.add("DELETE", "/admin/v1/console/session", endConsoleSession)
        admin("GET", "/admin/v1/users/{uid}/sessions", [], userSessions)
        admin("GET", "/admin/v1/stats/sign-ins", ["bucket", "buckets"], signInStats)
        // The console's files: the page at /admin/, and its scripts and style sheet beside it.
        router.add("GET", "/admin/", consolePage)
        router.add("GET", "/admin/{file}", consoleAsset)
    }

    /// `POST /admin/v1/console/session`: exchanges the admin token for a console session (its cookie and CSRF
    /// token); audited either way.
    func beginConsoleSession(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard services.config.consoleEnabled else { throw APIError.notFound }
        try request.allowOnlyQuery([])
        let body = try NativeBody(request)
        try body.allowOnly(["token"])
        let token = try body.string("token")
        do {
            try await services.adminGate.verify(token: token, for: request)
        } catch let error as AdminAuthenticationError where error.code != .lockedOut {
            await services.audit(
                .consoleSignIn, uid: nil, actor: .admin, outcome: Refusal.outcome(of: error), context: context)
            throw error
        }
        let grant = try await AdminSurface.requireConsoleSessions(services).begin()
        await services.audit(.consoleSignIn, uid: nil, actor: .admin, context: context)
        var response = HTTPResponse.json(
            200, ["csrfToken": .string(grant.csrfToken), "expiresAt": .string(grant.expiresAt.rfc3339)])
        response.headers.append(("Set-Cookie", ConsoleSessions.setCookie(grant)))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// `GET /admin/v1/console/session`: the live session's CSRF token and expiry, for a reloaded page.
    func showConsoleSession(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let (_, value, record) = try await liveConsoleSession(request)
        var response = HTTPResponse.json(
            200,
            [
                "csrfToken": .string(ConsoleSessions.csrfToken(for: value)),
                "expiresAt": .string(record.expiresAt.rfc3339),
            ])
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// `DELETE /admin/v1/console/session`: ends the session (with its CSRF token) and clears its cookie.
    func endConsoleSession(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let (sessions, _, _) = try await liveConsoleSession(request)
        guard ConsoleSessions.hasValidCSRFToken(request) else {
            throw APIError(401, "UNAUTHENTICATED", "A change made with the console session needs its CSRF token.")
        }
        try await sessions.end(request)
        await services.audit(.consoleSignOut, uid: nil, actor: .admin, context: context)
        return HTTPResponse(status: 204, headers: [("Set-Cookie", ConsoleSessions.clearCookie)])
    }

    /// The session routes' checks: the console's sessions (404 with the console off, 401 with no admin token), no
    /// query, the address not locked out, and the live session of the request's cookie with the cookie's value; 401
    /// without one (counted as a failed admin authentication when a cookie was sent).
    func liveConsoleSession(
        _ request: HTTPRequest
    ) async throws -> (ConsoleSessions, value: String, record: ConsoleSessionRecord) {
        let sessions = try await AdminSurface.requireConsoleSessions(services)
        try request.allowOnlyQuery([])
        try await services.adminGate.checkNotLockedOut(request)
        guard let value = ConsoleSessions.cookieValue(of: request), let record = try await sessions.session(of: request)
        else {
            if ConsoleSessions.cookieValue(of: request) != nil { await services.adminGate.countFailure(of: request) }
            throw APIError(401, "UNAUTHENTICATED", "No console session; sign in with the admin token.")
        }
        return (sessions, value, record)
    }

    /// `GET /admin/v1/users/{uid}/sessions`: how many sessions a user has live, and when one was last used.
    func userSessions(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let summary = try await services.insights.sessions(of: AdminSurface.uid(context))
        return .json(
            200,
            ["live": .int(Int64(summary.live)), "lastUsedAt": summary.lastUsedAt.map { .string($0.rfc3339) } ?? .null])
    }

    /// `GET /admin/v1/stats/sign-ins`: sign-ins counted per bucket (minute, hour or day), provider and outcome.
    func signInStats(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard let bucket = AdminInsights.Bucket(rawValue: request.query["bucket"] ?? "hour") else {
            throw APIError.invalidRequest("bucket must be minute, hour or day.")
        }
        var buckets = 24
        if let text = request.query["buckets"] {
            guard let number = Int(text), (1...AdminInsights.maximumBuckets).contains(number) else {
                let maximum = AdminInsights.maximumBuckets
                throw APIError.invalidRequest("buckets must be a whole number from 1 to \(maximum).")
            }
            buckets = number
        }
        let series = try await services.insights.signIns(bucket: bucket, buckets: buckets)
        let counts: [JSONValue] = series.counts.map { count in
            [
                "start": .string(count.start.rfc3339), "provider": .string(count.provider),
                "outcome": .string(count.outcome), "count": .int(Int64(count.count)),
            ]
        }
        return .json(
            200,
            [
                "bucket": .string(bucket.rawValue), "start": .string(series.start.rfc3339),
                "end": .string(series.end.rfc3339), "counts": .array(counts),
            ])
    }

    /// `GET /admin/`: the console's page.
    func consolePage(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard services.config.consoleEnabled else { throw APIError.notFound }
        return AdminSurface.consoleFile("index.html")
    }

    /// `GET /admin/{file}`: one of the console's scripts and style sheets.
    func consoleAsset(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard services.config.consoleEnabled else { throw APIError.notFound }
        return AdminSurface.consoleFile(context.parameters["file"] ?? "")
    }

    /// The audit filter of a `GET /admin/v1/audit` request.
    static func auditFilter(_ request: HTTPRequest) -> AuditFilter {
        func value(_ name: String) -> String? {
            request.query[name].flatMap { $0.isEmpty ? nil : String($0.prefix(128)) }
        }
        return AuditFilter(
            uid: value("uid").map(AccountID.init(rawValue:)), action: value("action").map(AuditAction.init(rawValue:)),
            provider: value("provider"), outcome: value("outcome"))
    }

    /// One of the console's embedded files with its content type and the console's headers, or 404.
    static func consoleFile(_ name: String) -> HTTPResponse {
        guard let text = ConsoleAssets.files[name] else {
            return NativeSurface.render(APIError.notFound).response
        }
        let type: String
        switch name.split(separator: ".").last {
        case "html": type = "text/html; charset=utf-8"
        case "css": type = "text/css; charset=utf-8"
        case "js": type = "text/javascript; charset=utf-8"
        case "svg": type = "image/svg+xml"
        default: type = "application/octet-stream"
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", type)] + consoleHeaders, body: Array(text.utf8))
    }
}
