/// A `/v1/me` route handler: the request, its context and the account its ID token authenticates.
typealias AuthenticatedHandler = @Sendable (HTTPRequest, RequestContext, Account) async throws -> HTTPResponse
/// A handler of a sensitive `/v1/me` change: also the session its ID token names.
typealias RecentHandler =
    @Sendable (HTTPRequest, RequestContext, Account, AuthenticatedSession) async throws -> HTTPResponse

extension NativeSurface {
    func mountMe(_ router: inout Router) {
        let services = self.services
        /// Registers a route of the signed-in user: the ID token is checked before the handler runs.
        func me(_ method: String, _ pattern: String, _ handler: @escaping AuthenticatedHandler) {
            router.add(method, pattern) { request, context in
                try await handler(request, context, try await NativeSurface.authenticate(request, services))
            }
        }

        me("GET", "/v1/me") { _, _, account in .json(200, account.json) }
        me("PATCH", "/v1/me") { request, context, account in
            try request.allowOnlyQuery([])
            let body = try NativeBody(request)
            try body.allowOnly(["displayName", "photoUrl"])
            var change = ProfileChange()
            if body.has("displayName") { change.displayName = .some(try body.optionalString("displayName")) }
            if body.has("photoUrl") { change.photoURL = .some(try body.optionalString("photoUrl")) }
            let updated = try await services.accounts.updateProfile(account.id, change, requestID: context.requestID)
            return .json(200, updated.json)
        }
        /// Registers a route of a sensitive change: also needs a sign-in at most 5 minutes old (contract section 4).
        func recent(_ method: String, _ pattern: String, _ handler: @escaping RecentHandler) {
            router.add(method, pattern) { request, context in
                let (account, session) = try await NativeSurface.authenticateSession(request, services)
                // A guest cannot sign in again: its session always counts as recent (contract section 4).
                if !account.isAnonymous { try services.sessions.requireRecentSignIn(session.claims) }
                return try await handler(request, context, account, session)
            }
        }
        recent("DELETE", "/v1/me") { _, context, account, _ in
            try await services.accounts.delete(account.id, requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        recent("POST", "/v1/me/password") { request, context, account, session in
            try request.allowOnlyQuery([])
            let body = try NativeBody(request)
            try body.allowOnly(["newPassword"])
            let password = try body.string("newPassword")
            // The session that asked goes on only through the new tokens: same sign-in method and `auth_time`.
            let provider = session.claims["sign_in_provider"]?.stringValue ?? ProviderID.password.rawValue
            let authTime = SessionService.authTime(of: session.claims)
            let (accounts, requestID) = (services.accounts, context.requestID)
            let renewed = try await services.signIn.renew(
                account, provider: provider, because: .passwordChange, surface: .native, authTime: authTime
            ) { grant in
                try await accounts.changePassword(account.id, to: password, session: grant, requestID: requestID)
            }
            return .json(200, renewed.tokens.body(user: renewed.account, isNewUser: false))
        }
        me("POST", "/v1/me/identities/{provider}") { request, context, account in
            let signIn = try NativeSurface.signInRequest(request, context, services)
            // A guest's link is its upgrade in place (contract section 13): the session body.
            guard !account.isAnonymous else {
                let upgraded = try await services.signIn.upgrade(account, signIn)
                return .json(200, upgraded.tokens.body(user: upgraded.account, isNewUser: false))
            }
            return .json(200, try await services.signIn.link(account.id, signIn).json)
        }
        me("DELETE", "/v1/me/identities/{provider}") { _, context, account in
            let provider = ProviderID(context.parameters["provider"] ?? "")
            let unlinked = try await services.accounts.unlink(
                account.id, provider: provider, requestID: context.requestID)
            return .json(200, unlinked.json)
        }
    }

    /// The account named by a valid broker ID token of a live session in `Authorization: Bearer`, or 401
    /// `UNAUTHENTICATED` (also for an ended session, checked first, and a deleted account); a disabled account's
    /// gets 403 `USER_DISABLED` while it lasts (a disable is not a revocation).
    static func authenticate(_ request: HTTPRequest, _ services: BrokerServices) async throws -> Account {
        try await authenticateSession(request, services).account
    }

    /// ``authenticate(_:_:)``'s account with the session its ID token names (and the token's claims).
    static func authenticateSession(
        _ request: HTTPRequest, _ services: BrokerServices
    ) async throws -> (account: Account, session: AuthenticatedSession) {
        guard let header = request.headers["authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { throw SessionError(.unauthenticated) }
        let session = try await services.sessions.authenticate(idToken: String(header.dropFirst(7)))
        do {
            return (try await services.accounts.activeAccount(session.accountID), session)
        } catch let error as AccountError where error.code == .notFound {
            throw SessionError(.unauthenticated, "account deleted")
        }
    }
}
