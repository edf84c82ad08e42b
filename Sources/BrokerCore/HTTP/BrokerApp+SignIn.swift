extension BrokerApp {
    func registerSignIn(_ router: inout Router) {
        router.add("POST", "/v1/signin/{provider}") { [services] request, context in
            let name = context.parameters["provider"] ?? ""
            guard let provider = services.providers.provider(ProviderID(name)) else {
                throw APIError(404, "PROVIDER_NOT_ENABLED", "This provider is not enabled.")
            }
            let body = try BrokerApp.jsonObject(request)
            do {
                let signIn = try await provider.signIn(body: body)
                let outcome = try await services.accounts.signIn(signIn)
                let tokens = try await services.sessions.begin(account: outcome.account, provider: provider.id.rawValue)
                services.metrics.increment(
                    "broker_signins_total",
                    labels: ["provider": provider.id.rawValue, "outcome": outcome.isNewUser ? "created" : "success"])
                return .json(
                    outcome.isNewUser ? 201 : 200, tokens.body(user: outcome.account, isNewUser: outcome.isNewUser))
            } catch {
                let code = APIError.mapping(error)?.code ?? "INTERNAL"
                services.metrics.increment(
                    "broker_signins_total", labels: ["provider": provider.id.rawValue, "outcome": code])
                throw error
            }
        }
    }
}
