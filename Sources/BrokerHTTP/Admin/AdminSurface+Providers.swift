import BrokerCore
import BrokerModel
/// The OpenID Connect providers managed at run time under `/admin/v1/providers` (contract section 5 and 11),
/// through ``ProviderConfigService``: list (the config file's too, `readOnly`), create, read, change (`PATCH`)
/// and delete. A client secret is taken but never answered here (`hasClientSecret` says whether one is kept).
extension AdminSurface {
    /// Adds the provider routes with `admin` (the admin API's route registration: the gate, then the query).
    func mountProviderConfigs(_ admin: (String, String, @escaping RouteHandler) -> Void) {
        let services = self.services
        admin("GET", "/admin/v1/providers") { _, _ in
            let configs = try await services.providerConfigs.configs()
            return .json(200, ["providers": .array(configs.map(\.adminJSON))])
        }
        admin("POST", "/admin/v1/providers") { request, context in
            let body = try NativeBody(request)
            try body.allowOnly(Self.providerFields.union(["id"]))
            var config = OIDCProviderConfig(
                id: try body.string("id"), clientID: try body.string("clientId"), issuer: try body.string("issuer"))
            try Self.apply(body, to: &config)
            let made = try await services.providerConfigs.create(config, requestID: context.requestID)
            return .json(201, made.adminJSON)
        }
        admin("GET", "/admin/v1/providers/{id}") { _, context in
            guard let config = try await services.providerConfigs.config(id: context.parameters["id"] ?? "") else {
                throw APIError.notFound
            }
            return .json(200, config.adminJSON)
        }
        admin("PATCH", "/admin/v1/providers/{id}") { request, context in
            let body = try NativeBody(request)
            try body.allowOnly(Self.providerFields)
            let updated = try await services.providerConfigs.update(
                id: context.parameters["id"] ?? "", requestID: context.requestID
            ) { config in try Self.apply(body, to: &config) }
            return .json(200, updated.adminJSON)
        }
        admin("DELETE", "/admin/v1/providers/{id}") { _, context in
            try await services.providerConfigs.delete(id: context.parameters["id"] ?? "", requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
    }

    /// The fields a body may change.
    static let providerFields: Set<String> = ["clientId", "issuer", "displayName", "enabled", "clientSecret"]

    /// Sets the fields `body` has (`displayName` and `clientSecret` may be null: removed).
    static func apply(_ body: NativeBody, to config: inout OIDCProviderConfig) throws {
        if body.has("clientId") { config.clientID = try body.string("clientId") }
        if body.has("issuer") { config.issuer = try body.string("issuer") }
        if body.has("displayName") { config.displayName = try body.optionalString("displayName") }
        if let enabled = try body.optionalBool("enabled") { config.enabled = enabled }
        if body.has("clientSecret") {
            let secret = try body.optionalString("clientSecret")
            config.clientSecret = secret?.isEmpty == false ? secret : nil
        }
    }
}

extension OIDCProviderConfig {
    /// The provider as the admin API shows it, without its client secret.
    var adminJSON: JSONValue {
        [
            "id": .string(id), "clientId": .string(clientID), "issuer": .string(issuer),
            "displayName": displayName.map(JSONValue.string) ?? .null, "enabled": .bool(enabled),
            "hasClientSecret": .bool(clientSecret != nil), "readOnly": .bool(readOnly),
        ]
    }
}
