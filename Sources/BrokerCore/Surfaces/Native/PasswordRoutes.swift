extension BrokerApp {
    func registerPasswords(_ router: inout Router) {
        router.add("POST", "/v1/signup") { [services] request, context in
            let body = try BrokerApp.jsonObject(request)
            let email = try BrokerApp.string(body, "email")
            let password = try BrokerApp.string(body, "password")
            let displayName = try BrokerApp.optionalString(body, "displayName")
            do {
                let (refreshToken, grant) = services.sessions.grant(provider: "password")
                let account = try await services.accounts.signUp(
                    email: email, password: password, displayName: displayName, session: grant,
                    requestID: context.requestID)
                let tokens = try await services.sessions.tokens(for: account, provider: "password", refreshToken: refreshToken)
                services.metrics.increment("broker_signups_total")
                return .json(201, tokens.body(user: account, isNewUser: true))
            } catch {
                let code = APIError.mapping(error)?.code ?? "INTERNAL"
                await services.audit("sign_up", uid: nil, provider: "password", outcome: code, context: context)
                throw error
            }
        }
        router.add("POST", "/v1/signin/password") { [services] request, context in
            let body = try BrokerApp.jsonObject(request)
            let email = try BrokerApp.string(body, "email")
            let password = try BrokerApp.string(body, "password")
            do {
                let (refreshToken, grant) = services.sessions.grant(provider: "password")
                let account = try await services.accounts.passwordSignIn(
                    email: email, password: password, session: grant, requestID: context.requestID)
                let tokens = try await services.sessions.tokens(for: account, provider: "password", refreshToken: refreshToken)
                services.metrics.increment("broker_signins_total", labels: ["provider": "password", "outcome": "success"])
                return .json(200, tokens.body(user: account, isNewUser: false))
            } catch {
                let code = APIError.mapping(error)?.code ?? "INTERNAL"
                services.metrics.increment("broker_signins_total", labels: ["provider": "password", "outcome": code])
                await services.audit("sign_in", uid: nil, provider: "password", outcome: code, context: context)
                throw error
            }
        }
    }

    /// A required string field of a body, or 400 `INVALID_REQUEST`.
    static func string(_ body: [String: JSONValue], _ field: String) throws -> String {
        guard let value = body[field]?.stringValue else {
            throw APIError.invalidRequest("\(field) is required and must be a string.")
        }
        return value
    }

    /// An optional string field (absent or null is nil), or 400 `INVALID_REQUEST` for another type.
    static func optionalString(_ body: [String: JSONValue], _ field: String) throws -> String? {
        switch body[field] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw APIError.invalidRequest("\(field) must be a string.")
        }
    }
}
