extension BrokerApp {
    func registerSessions(_ router: inout Router) {
        router.add("POST", "/v1/token") { [services] request, _ in
            let body = try BrokerApp.jsonObject(request)
            guard let token = body["refreshToken"]?.stringValue, !token.isEmpty else {
                throw APIError.invalidRequest("refreshToken must be a non-empty string.")
            }
            let (account, tokens) = try await services.sessions.refresh(token)
            return .json(200, tokens.body(user: account, isNewUser: false))
        }
        router.add("POST", "/v1/signout") { [services] request, context in
            let body = try BrokerApp.jsonObject(request)
            guard let token = body["refreshToken"]?.stringValue, !token.isEmpty else {
                throw APIError.invalidRequest("refreshToken must be a non-empty string.")
            }
            if let uid = try await services.sessions.signOut(token) {
                await services.audit("sign_out", uid: uid, context: context)
            }
            return HTTPResponse(status: 204)
        }
    }
}
