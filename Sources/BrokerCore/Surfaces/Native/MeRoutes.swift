extension BrokerApp {
    func registerMe(_ router: inout Router) {
        router.add("GET", "/v1/me") { [services] request, _ in
            .json(200, try await BrokerApp.authenticate(request, services).json)
        }
        router.add("PATCH", "/v1/me") { [services] request, context in
            let uid = try await BrokerApp.authenticate(request, services).id
            let body = try BrokerApp.jsonObject(request)
            var change = ProfileChange()
            if body.keys.contains("displayName") { change.displayName = .some(try BrokerApp.optionalString(body, "displayName")) }
            if body.keys.contains("photoUrl") { change.photoURL = .some(try BrokerApp.optionalString(body, "photoUrl")) }
            let updated = try await services.accounts.updateProfile(uid, change)
            await services.audit("update", uid: uid, context: context)
            return .json(200, updated.json)
        }
        router.add("DELETE", "/v1/me") { [services] request, context in
            let uid = try await BrokerApp.authenticate(request, services).id
            try await services.accounts.delete(uid)
            await services.audit("delete", uid: uid, context: context)
            return HTTPResponse(status: 204)
        }
        router.add("POST", "/v1/me/identities/{provider}") { [services] request, context in
            let uid = try await BrokerApp.authenticate(request, services).id
            guard let provider = services.providers.provider(ProviderID(context.parameters["provider"] ?? "")) else {
                throw APIError(404, "PROVIDER_NOT_ENABLED", "This provider is not enabled.")
            }
            let body = try BrokerApp.jsonObject(request)
            let signIn = try await provider.signIn(body: body)
            let linked = try await services.accounts.link(uid, signIn)
            await services.audit("link", uid: uid, provider: provider.id.rawValue, context: context)
            return .json(200, linked.json)
        }
        router.add("DELETE", "/v1/me/identities/{provider}") { [services] request, context in
            let uid = try await BrokerApp.authenticate(request, services).id
            let provider = ProviderID(context.parameters["provider"] ?? "")
            let unlinked = try await services.accounts.unlink(uid, provider: provider)
            await services.audit("unlink", uid: uid, provider: provider.rawValue, context: context)
            return .json(200, unlinked.json)
        }
    }

    /// The account named by a valid broker ID token in `Authorization: Bearer`, or 401 `UNAUTHENTICATED`;
    /// a deleted account's token no longer authenticates, a disabled account's gets 403 `USER_DISABLED`.
    static func authenticate(_ request: HTTPRequest, _ services: BrokerServices) async throws -> Account {
        guard let header = request.headers["authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { throw SessionError(.unauthenticated) }
        let claims = try await services.sessions.verifyIDToken(String(header.dropFirst(7)))
        guard let subject = claims["sub"]?.stringValue else { throw SessionError(.unauthenticated) }
        let account: Account
        do {
            account = try await services.accounts.activeAccount(AccountID(subject))
        } catch let error as AccountError where error.code == .notFound {
            throw SessionError(.unauthenticated, "account deleted")
        }
        // Tokens issued before the account's sessions were revoked (a takeover, an admin) no longer count.
        if let validAfter = account.tokensValidAfter,
            (claims["iat"]?.doubleValue ?? 0) < validAfter.timeIntervalSince1970
        {
            throw SessionError(.unauthenticated, "token issued before the sessions were revoked")
        }
        return account
    }
}
