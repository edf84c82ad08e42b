import BrokerCore
import BrokerModel
/// A `/v1/me` route handler: the request, its context and the user its ID token authenticates.
typealias AuthenticatedHandler =
    @Sendable (HTTPRequest, RequestContext, AccountSelfService.User) async throws -> HTTPResponse

extension NativeSurface {
    func mountMe(_ router: inout Router) {
        let services = self.services
        func me(_ method: String, _ pattern: String, _ handler: @escaping AuthenticatedHandler) {
            router.add(method, pattern, NativeSurface.signedIn(services, handler))
        }
        let selfService = services.selfService

        me("GET", "/v1/me") { _, _, user in .json(200, user.account.jsonText) }
        me("PATCH", "/v1/me") { request, context, user in
            try request.allowOnlyQuery([])
            let body = try NativeBody(request)
            try body.allowOnly(["displayName", "photoUrl"])
            var change = ProfileChange()
            if body.has("displayName") { change.displayName = .some(try body.optionalString("displayName")) }
            if body.has("photoUrl") { change.photoURL = .some(try body.optionalString("photoUrl")) }
            return .json(200, try await selfService.updateProfile(user, change, requestID: context.requestID).json)
        }
        // A sensitive change needs a sign-in at most 5 minutes old (contract section 4): the service checks.
        me("DELETE", "/v1/me") { _, context, user in
            try await selfService.delete(user, requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        me("POST", "/v1/me/password") { request, context, user in
            try request.allowOnlyQuery([])
            let body = try NativeBody(request)
            try body.allowOnly(["newPassword"])
            let password = try body.string("newPassword")
            // The session that asked goes on only through the new tokens: same sign-in method and `auth_time`.
            let provider = user.claims["sign_in_provider"]?.stringValue ?? ProviderID.password.rawValue
            let renewed = try await selfService.changePassword(
                user, to: password, provider: provider, surface: .native, requestID: context.requestID)
            return .json(200, renewed.tokens.body(user: renewed.account, isNewUser: false))
        }
        // The email change (contract section 9): the new address gets a link; nothing changes until it is followed.
        me("POST", "/v1/me/email") { request, context, user in
            try request.allowOnlyQuery([])
            let mail = try NativeSurface.emailActions(services)
            let body = try NativeBody(request)
            try body.allowOnly(["newEmail", "continueUrl"])
            try await selfService.requestEmailChange(
                user, to: try body.string("newEmail"), continueURL: try body.optionalString("continueUrl"),
                acceptLanguage: request.headers["accept-language"], using: mail, requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        me("POST", "/v1/me/identities/{provider}") { request, context, user in
            let signIn = try await NativeSurface.signInRequest(request, context, services)
            switch try await services.signIn.linkOrUpgrade(user, signIn) {
            // A guest's link is its upgrade in place (contract section 13): the session body.
            case .upgraded(let upgraded):
                return .json(200, upgraded.tokens.body(user: upgraded.account, isNewUser: false))
            case .linked(let account): return .json(200, account.json)
            }
        }
        me("DELETE", "/v1/me/identities/{provider}") { _, context, user in
            let provider = ProviderID(context.parameters["provider"] ?? "")
            return .json(200, try await selfService.unlink(user, provider: provider, requestID: context.requestID).json)
        }
    }

    /// A route of the signed-in user: the ID token is checked before `handler` runs.
    static func signedIn(
        _ services: NativeSurface.Dependencies, _ handler: @escaping AuthenticatedHandler
    ) -> RouteHandler {
        { request, context in
            try await handler(request, context, try await NativeSurface.authenticateUser(request, services))
        }
    }

    /// ``authenticate(_:_:)``'s account with its token's claims: the user asking.
    static func authenticateUser(
        _ request: HTTPRequest, _ services: NativeSurface.Dependencies
    ) async throws -> SignedInUser {
        let (account, session) = try await authenticateSession(request, services)
        return SignedInUser(account: account, claims: session.claims)
    }

    /// The account named by a valid broker ID token of a live session in `Authorization: Bearer`, or 401
    /// `UNAUTHENTICATED` (also for an ended session, checked first, and a deleted account); a disabled account's
    /// gets 403 `USER_DISABLED` while it lasts (a disable is not a revocation).
    static func authenticate(_ request: HTTPRequest, _ services: NativeSurface.Dependencies) async throws -> Account {
        try await authenticateSession(request, services).account
    }

    /// ``authenticate(_:_:)``'s account with the session its ID token names (and the token's claims).
    static func authenticateSession(
        _ request: HTTPRequest, _ services: NativeSurface.Dependencies
    ) async throws -> (account: Account, session: AuthenticatedSession) {
        guard let header = request.headers["authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { throw SessionError(.unauthenticated) }
        let (session, stored) = try await services.sessions.authenticateWithAccount(
            idToken: String(header.dropFirst(7)))
        do {
            return (try services.accounts.active(stored), session)
        } catch let error as AccountError where error.code == .notFound {
            throw SessionError(.unauthenticated, "account deleted")
        }
    }
}
