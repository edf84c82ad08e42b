extension BrokerApp {
    func registerSignIn(_ router: inout Router) {
        router.add("POST", "/v1/signin/{provider}") { [services] request, context in
            let name = context.parameters["provider"] ?? ""
            guard let provider = services.providers.provider(ProviderID(name)) else {
                throw APIError(404, "PROVIDER_NOT_ENABLED", "This provider is not enabled.")
            }
            let body = try BrokerApp.jsonObject(request)
            do {
                var signIn = try await provider.signIn(body: body)
                let (refreshToken, grant) = services.sessions.grant(provider: provider.id.rawValue)
                signIn.session = grant
                signIn.requestID = context.requestID  // the sign-in's audit events commit with it
                let outcome = try await services.accounts.signIn(signIn)
                let tokens = try await services.sessions.tokens(
                    for: outcome.account, provider: provider.id.rawValue, refreshToken: refreshToken)
                let result = outcome.isNewUser ? "created" : "success"
                services.metrics.increment(
                    "broker_signins_total", labels: ["provider": provider.id.rawValue, "outcome": result])
                return .json(
                    outcome.isNewUser ? 201 : 200, tokens.body(user: outcome.account, isNewUser: outcome.isNewUser))
            } catch {
                let code = APIError.mapping(error)?.code ?? "INTERNAL"
                services.metrics.increment(
                    "broker_signins_total", labels: ["provider": provider.id.rawValue, "outcome": code])
                await services.audit("sign_in", uid: nil, provider: provider.id.rawValue, outcome: code, context: context)
                throw error
            }
        }
    }
}
