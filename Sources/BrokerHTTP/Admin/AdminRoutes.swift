public import BrokerCore
import BrokerModel
/// The admin API under `/admin/v1` (contract section 5), behind the admin token.
public struct AdminSurface: Surface {
    /// What the admin API and console use: the admin use cases, never the store.
    public struct Dependencies: Sendable {
        /// The parsed configuration.
        public var config: BrokerConfig
        /// Administration.
        public var admin: AdminService
        /// The admin API's authentication and per-address throttle.
        public var adminGate: AdminGate
        /// The read-only views: the audit log, sign-in counts, sessions.
        public var insights: AdminInsights
        /// Records audit events outside a store transaction.
        public var auditor: Auditor
        /// The OpenID Connect providers managed at run time.
        public var providerConfigs: ProviderConfigService
        /// The console's sessions, or nil when no admin token is configured (then no session authenticates).
        public var consoleSessions: @Sendable () async -> ConsoleSessions?

        /// What `services` holds for this surface.
        public init(_ services: BrokerServices) {
            config = services.config
            admin = services.admin
            adminGate = services.adminGate
            insights = services.insights
            auditor = services.auditor
            providerConfigs = services.providerConfigs
            consoleSessions = services.consoleSessionsOpener
        }
    }

    let services: Dependencies

    /// Creates the surface over `services`.
    public init(services: BrokerServices) { self.init(dependencies: Dependencies(services)) }

    /// Creates the surface over its dependencies.
    public init(dependencies: Dependencies) { services = dependencies }

    /// The native error body.
    public func render(_ error: any Error) -> RenderedError { NativeSurface.render(error) }

    /// Adds the admin routes.
    public func mount(on router: inout Router) {
        /// Registers an admin route: the gate runs before the handler, then any query parameter outside `query`
        /// is refused.
        func admin(_ method: String, _ pattern: String, query: Set<String> = [], _ handler: @escaping RouteHandler) {
            router.add(method, pattern) { [services] request, context in
                try await AdminSurface.authorize(request, services)
                try request.allowOnlyQuery(query)
                return try await handler(request, context)
            }
        }
        let services = self.services

        let listing: Set<String> = ["email", "emailPrefix", "provider", "anonymous", "limit", "cursor"]
        admin("GET", "/admin/v1/users", query: listing) { request, _ in
            let filter = AccountFilter(
                email: request.query["email"].flatMap { $0.isEmpty ? nil : $0 },
                provider: request.query["provider"].flatMap { $0.isEmpty ? nil : $0 },
                emailPrefix: request.query["emailPrefix"].flatMap { $0.isEmpty ? nil : String($0.prefix(320)) },
                anonymous: try AdminSurface.anonymous(request))
            let (users, next) = try await services.admin.listUsers(
                filter: filter, cursor: request.query["cursor"], limit: try AdminSurface.limit(request))
            return .json(
                200, ["users": .array(users.map(\.adminJSON)), "nextCursor": next.map(JSONValue.string) ?? .null])
        }
        admin("GET", "/admin/v1/users/{uid}") { _, context in
            .json(200, try await services.admin.userView(AdminSurface.uid(context)))
        }
        admin("GET", "/admin/v1/identities/{provider}/{subject}") { _, context in
            let account = try await services.admin.user(
                provider: ProviderID(context.parameters["provider"] ?? ""), subject: context.parameters["subject"] ?? ""
            )
            return .json(200, account.adminJSON)
        }
        admin("PATCH", "/admin/v1/users/{uid}") { request, context in
            let body = try NativeBody(request)
            try body.allowOnly(["disabled", "displayName", "emailVerified", "customClaims"])
            var change = AdminChange()
            change.disabled = try body.optionalBool("disabled")
            change.emailVerified = try body.optionalBool("emailVerified")
            if body.has("displayName") { change.displayName = .some(try body.optionalString("displayName")) }
            if let claims = body.members["customClaims"] {
                change.customClaims = .some(claims == .null ? nil : try CustomClaims.validated(claims))
            }
            let updated = try await services.admin.update(
                AdminSurface.uid(context), change, requestID: context.requestID)
            return .json(200, updated.adminJSON)
        }
        admin("DELETE", "/admin/v1/users/{uid}") { _, context in
            try await services.admin.delete(AdminSurface.uid(context), requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        admin("DELETE", "/admin/v1/users/{uid}/identities/{provider}") { _, context in
            let updated = try await services.admin.unlink(
                AdminSurface.uid(context), provider: ProviderID(context.parameters["provider"] ?? ""),
                requestID: context.requestID)
            return .json(200, updated.adminJSON)
        }
        admin("DELETE", "/admin/v1/users/{uid}/mfa/{factorId}") { _, context in
            try await services.admin.removeSecondFactor(
                AdminSurface.uid(context), factorID: context.parameters["factorId"] ?? "", requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        admin("DELETE", "/admin/v1/users/{uid}/passkeys/{id}") { _, context in
            try await services.admin.removePasskey(
                AdminSurface.uid(context), passkeyID: context.parameters["id"] ?? "", requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        admin("POST", "/admin/v1/users/{uid}/revoke-sessions") { request, context in
            try NativeBody.requireEmpty(request)
            try await services.admin.revokeSessions(AdminSurface.uid(context), requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        admin("POST", "/admin/v1/custom-tokens") { request, context in
            let body = try NativeBody(request)
            try body.allowOnly(["uid", "claims"])
            let uid = try body.string("uid")
            let claims = body.members["claims"].flatMap { $0 == .null ? nil : $0 }
            let token = try await services.admin.customToken(
                AccountID(uid), claims: claims, requestID: context.requestID)
            return .json(200, ["customToken": .string(token)])
        }
        admin("GET", "/admin/v1/audit", query: ["uid", "action", "provider", "outcome", "limit", "cursor"]) {
            request, _ in
            let (events, next) = try await services.insights.audit(
                AdminSurface.auditFilter(request), cursor: request.query["cursor"],
                limit: try AdminSurface.limit(request))
            return .json(
                200, ["events": .array(events.map(\.json)), "nextCursor": next.map(JSONValue.string) ?? .null])
        }
        admin("GET", "/admin/v1/outbox", query: ["uid", "failing"]) { request, _ in
            let failing: Bool
            switch request.query["failing"] {
            case nil, ""?, "false"?: failing = false
            case "true"?: failing = true
            default: throw APIError.invalidRequest("failing must be true or false.")
            }
            let uid = request.query["uid"].flatMap { $0.isEmpty ? nil : AccountID($0) }
            let jobs = try await services.admin.outboxJobs(uid: uid, failing: failing)
            return .json(200, ["jobs": .array(jobs.map(\.json))])
        }
        admin("POST", "/admin/v1/outbox/{id}/retry") { _, context in
            let job = try await services.admin.retryOutboxJob(id: context.parameters["id"] ?? "")
            return .json(200, ["job": job.json])
        }
        mountProviderConfigs { method, pattern, handler in admin(method, pattern, handler) }
        mountConsole(on: &router)
    }

    /// The `{uid}` path parameter.
    static func uid(_ context: RequestContext) -> AccountID { AccountID(context.parameters["uid"] ?? "") }

    /// The `limit` query parameter: 1 to 1000, 100 when absent.
    /// The `anonymous` filter of a user listing: `true` (only guests), `false` (no guests), absent (all).
    static func anonymous(_ request: HTTPRequest) throws -> Bool? {
        switch request.query["anonymous"] {
        case nil, ""?: return nil
        case "true"?: return true
        case "false"?: return false
        default: throw APIError.invalidRequest("anonymous must be true or false.")
        }
    }

    static func limit(_ request: HTTPRequest) throws -> Int {
        guard let text = request.query["limit"], !text.isEmpty else { return AdminService.defaultLimit }
        guard let limit = Int(text), (1...AdminService.maximumLimit).contains(limit) else {
            throw APIError.invalidRequest("limit must be a whole number from 1 to \(AdminService.maximumLimit).")
        }
        return limit
    }
}
