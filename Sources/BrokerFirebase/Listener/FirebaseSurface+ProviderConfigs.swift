import BrokerCore
import BrokerModel
import Foundation

/// The Admin SDK's OpenID Connect provider configs, `…/v2/projects/{project}/oauthIdpConfigs[/oidc.<id>]`
/// (contract section 11): create (`?oauthIdpConfigId=oidc.<id>`), get, list (`pageSize`, `pageToken`), update
/// (`PATCH`, `?updateMask=`) and delete, with Firebase's field names (`name`, `clientId`, `issuer`,
/// `displayName`, `enabled`, `clientSecret`, `responseType` {`idToken`, `code`}), translated to and from
/// ``ProviderConfigService`` (which checks, seals the client secret and audits). The config file's OIDC providers
/// are listed and read too; changing one is `OPERATION_NOT_ALLOWED`. SAML (`inboundSamlConfigs`) is refused with
/// `OPERATION_NOT_ALLOWED`. All are `.admin` (`Bearer owner`).
extension FirebaseSurface {
    static let providerConfigsPath = FirebaseEndpoints.identityToolkitV2Path + "/projects/{project}/oauthIdpConfigs"
    static let samlConfigsPath = FirebaseEndpoints.identityToolkitV2Path + "/projects/{project}/inboundSamlConfigs"
    /// The most configs one page lists, as Firebase's.
    static let maximumConfigPage = 100

    /// Adds the provider-config routes to `routes`.
    func mountProviderConfigRoutes(on routes: inout FirebaseRouteTable) {
        let one = Self.providerConfigsPath + "/{configId}"
        routes.add("POST", Self.providerConfigsPath, access: .admin) { call in
            try await createConfig(call)
        }
        routes.add("GET", Self.providerConfigsPath, access: .admin) { call in
            try await listConfigs(call)
        }
        routes.add("GET", one, access: .admin) { call in try await getConfig(call) }
        routes.add("PATCH", one, access: .admin) { call in try await updateConfig(call) }
        routes.add("DELETE", one, access: .admin) { call in try await deleteConfig(call) }
        for method in ["POST", "GET"] {
            for path in [Self.samlConfigsPath, Self.samlConfigsPath + "/{configId}"] {
                routes.add(method, path, access: .admin) { _ in
                    throw FirebaseError("OPERATION_NOT_ALLOWED", "SAML providers are not supported by the broker")
                }
            }
        }
    }

    static let configNotFound = FirebaseError("CONFIGURATION_NOT_FOUND", status: 404)

    private func createConfig(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try configID(call.request.query["oauthIdpConfigId"])
        let body = call.body
        var config = OIDCProviderConfig(
            id: id, clientID: try body.string("clientId", missing: "MISSING_CLIENT_ID"),
            issuer: try body.string("issuer", missing: "MISSING_ISSUER"),
            displayName: try body.optionalString("displayName"), enabled: try body.optionalBool("enabled") ?? false)
        try apply(body, to: &config, fields: ["clientSecret", "responseType.idToken", "responseType.code"])
        let made = try await services.providerConfigs.create(config, requestID: call.requestID)
        return .json(200, configJSON(made, project: call))
    }

    private func getConfig(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try configID(call.context.parameters["configId"])
        guard let config = try await services.providerConfigs.config(id: id) else { throw Self.configNotFound }
        return .json(200, configJSON(config, project: call))
    }

    private func listConfigs(_ call: FirebaseCall) async throws -> HTTPResponse {
        let size =
            try call.request.query["pageSize"].map { text in
                guard let size = Int(text), (1...Self.maximumConfigPage).contains(size) else {
                    throw FirebaseError.invalidArgument("pageSize must be 1 to \(Self.maximumConfigPage)")
                }
                return size
            } ?? Self.maximumConfigPage
        // The page token is the id of the last config of the previous page.
        let after = call.request.query["pageToken"].flatMap { $0.isEmpty ? nil : $0 }
        let all = try await services.providerConfigs.configs().filter { config in
            after.map { Array($0.utf8).lexicographicallyPrecedes(Array(config.id.utf8)) } ?? true
        }
        let page = Array(all.prefix(size))
        var fields: [String: JSONValue] = [
            "oauthIdpConfigs": .array(page.map { configJSON($0, project: call) })
        ]
        if all.count > size, let last = page.last { fields["nextPageToken"] = .string(last.id) }
        return .json(200, .object(fields))
    }

    private func updateConfig(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try configID(call.context.parameters["configId"])
        let body = call.body
        let mask = (call.request.query["updateMask"] ?? "").split(separator: ",").map(String.init)
        guard !mask.isEmpty else { throw FirebaseError.invalidArgument("updateMask names no field") }
        let updated = try await services.providerConfigs.update(id: id, requestID: call.requestID) { config in
            for field in mask {
                switch field {
                case "clientId": config.clientID = try body.string("clientId", missing: "MISSING_CLIENT_ID")
                case "issuer": config.issuer = try body.string("issuer", missing: "MISSING_ISSUER")
                case "displayName": config.displayName = try body.optionalString("displayName")
                case "enabled": config.enabled = try body.optionalBool("enabled") ?? false
                case "clientSecret", "responseType.idToken", "responseType.code", "responseType":
                    try apply(body, to: &config, fields: [field])
                default: throw FirebaseError.invalidArgument("updateMask names an unknown field: \(field)")
                }
            }
        }
        return .json(200, configJSON(updated, project: call))
    }

    private func deleteConfig(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try configID(call.context.parameters["configId"])
        try await services.providerConfigs.delete(id: id, requestID: call.requestID)
        return .json(200, .object([:]))
    }

    /// `oidc.<id>` as the broker's provider id `<id>` (``ProviderConfigService/check(id:)``), else
    /// `INVALID_PROVIDER_ID`.
    private func configID(_ text: String?) throws -> String {
        guard let text, text.hasPrefix("oidc.") else {
            throw FirebaseError("INVALID_PROVIDER_ID", "an OIDC provider id is oidc.<a-z, 0-9 and ->")
        }
        let id = String(text.dropFirst(5))
        try ProviderConfigService.check(id: id)
        return id
    }

    /// Sets `fields` (of `clientSecret`, `responseType`, `responseType.idToken`, `responseType.code`) from `body`.
    private func apply(_ body: FirebaseBody, to config: inout OIDCProviderConfig, fields: [String]) throws {
        let responseType = try body.object("responseType")
        for field in fields {
            switch field {
            case "clientSecret":
                let secret = try body.optionalString("clientSecret")
                config.clientSecret = secret?.isEmpty == false ? secret : nil
            case "responseType.idToken":
                if let flag = try responseType?.optionalBool("idToken") { config.idTokenResponse = flag }
            case "responseType.code":
                if let flag = try responseType?.optionalBool("code") { config.codeResponse = flag }
            default:
                try apply(body, to: &config, fields: ["responseType.idToken", "responseType.code"])
            }
        }
    }

    /// A config as Firebase answers it, the client secret in clear.
    private func configJSON(_ config: OIDCProviderConfig, project call: FirebaseCall) -> JSONValue {
        let project = call.context.parameters["project"] ?? ""
        var fields: [String: JSONValue] = [
            "name": .string("projects/\(project)/oauthIdpConfigs/oidc.\(config.id)"),
            "clientId": .string(config.clientID), "issuer": .string(config.issuer), "enabled": .bool(config.enabled),
            "responseType": ["idToken": .bool(config.idTokenResponse), "code": .bool(config.codeResponse)],
        ]
        if let name = config.displayName { fields["displayName"] = .string(name) }
        if let secret = config.clientSecret { fields["clientSecret"] = .string(secret) }
        return .object(fields)
    }
}
