import Foundation

/// The Admin SDK's OpenID Connect provider configs, `…/v2/projects/{project}/oauthIdpConfigs[/oidc.<id>]`
/// (contract section 11): create (`?oauthIdpConfigId=oidc.<id>`), get, list (`pageSize`, `pageToken`), update
/// (`PATCH`, `?updateMask=`) and delete, with Firebase's field names (`name`, `clientId`, `issuer`,
/// `displayName`, `enabled`, `clientSecret`, `responseType` {`idToken`, `code`}). The client secret is sealed with
/// `BROKER_ENCRYPTION_KEY` at rest and answered back, as Firebase does; creating one fetches nothing. SAML
/// (`inboundSamlConfigs`) is refused with `OPERATION_NOT_ALLOWED`. All are `.admin` (`Bearer owner`).
extension FirebaseSurface {
    static let providerConfigsPath = FirebaseEndpoints.identityToolkitV2Path + "/projects/{project}/oauthIdpConfigs"
    static let samlConfigsPath = FirebaseEndpoints.identityToolkitV2Path + "/projects/{project}/inboundSamlConfigs"
    /// The most configs one page lists, as Firebase's.
    static let maximumConfigPage = 100

    /// Adds the provider-config routes to `routes`.
    func mountProviderConfigRoutes(on routes: inout FirebaseRouteTable) {
        let one = Self.providerConfigsPath + "/{configId}"
        routes.add("POST", Self.providerConfigsPath, access: .admin) { call in
            try await configCall { try await createConfig(call) }
        }
        routes.add("GET", Self.providerConfigsPath, access: .admin) { call in
            try await configCall { try await listConfigs(call) }
        }
        routes.add("GET", one, access: .admin) { call in try await configCall { try await getConfig(call) } }
        routes.add("PATCH", one, access: .admin) { call in try await configCall { try await updateConfig(call) } }
        routes.add("DELETE", one, access: .admin) { call in try await configCall { try await deleteConfig(call) } }
        for method in ["POST", "GET"] {
            for path in [Self.samlConfigsPath, Self.samlConfigsPath + "/{configId}"] {
                routes.add(method, path, access: .admin) { _ in
                    throw FirebaseError("OPERATION_NOT_ALLOWED", "SAML providers are not supported by the broker")
                }
            }
        }
    }

    /// Runs `body`, answering the store's refusals as Firebase's errors.
    private func configCall(_ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            return try await body()
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw FirebaseError("CONFIGURATION_EXISTS", status: 409)
        } catch let error as AccountStoreError where error.code == .notFound {
            throw Self.configNotFound
        }
    }

    static let configNotFound = FirebaseError("CONFIGURATION_NOT_FOUND", status: 404)

    private func createConfig(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try configID(call.request.query["oauthIdpConfigId"])
        // A provider of the config file keeps its id.
        guard services.providers.provider(ProviderID(id)) == nil else {
            throw FirebaseError("CONFIGURATION_EXISTS", "oidc.\(id) is a provider of the config file", status: 409)
        }
        let body = call.body
        let now = services.clock.now
        var config = StoredOIDCProvider(
            id: id, clientID: try body.string("clientId", missing: "MISSING_CLIENT_ID"),
            issuer: try Self.issuer(try body.string("issuer", missing: "MISSING_ISSUER")),
            displayName: try body.optionalString("displayName"), enabled: try body.optionalBool("enabled") ?? false,
            createdAt: now, updatedAt: now)
        try apply(body, to: &config, fields: ["clientSecret", "responseType.idToken", "responseType.code"])
        try Self.checkResponseType(config)
        try await services.admin.createProviderConfig(config, requestID: call.requestID)
        return .json(200, try configJSON(config, project: call))
    }

    private func getConfig(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try configID(call.context.parameters["configId"])
        guard let config = try await services.admin.providerConfig(id: id) else { throw Self.configNotFound }
        return .json(200, try configJSON(config, project: call))
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
        let all = try await services.admin.providerConfigs().filter { config in
            after.map { Array($0.utf8).lexicographicallyPrecedes(Array(config.id.utf8)) } ?? true
        }
        let page = Array(all.prefix(size))
        var fields: [String: JSONValue] = [
            "oauthIdpConfigs": .array(try page.map { try configJSON($0, project: call) })
        ]
        if all.count > size, let last = page.last { fields["nextPageToken"] = .string(last.id) }
        return .json(200, .object(fields))
    }

    private func updateConfig(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try configID(call.context.parameters["configId"])
        guard var config = try await services.admin.providerConfig(id: id) else { throw Self.configNotFound }
        let body = call.body
        let mask = (call.request.query["updateMask"] ?? "").split(separator: ",").map(String.init)
        guard !mask.isEmpty else { throw FirebaseError.invalidArgument("updateMask names no field") }
        for field in mask {
            switch field {
            case "clientId": config.clientID = try body.string("clientId", missing: "MISSING_CLIENT_ID")
            case "issuer": config.issuer = try Self.issuer(try body.string("issuer", missing: "MISSING_ISSUER"))
            case "displayName": config.displayName = try body.optionalString("displayName")
            case "enabled": config.enabled = try body.optionalBool("enabled") ?? false
            case "clientSecret", "responseType.idToken", "responseType.code", "responseType":
                try apply(body, to: &config, fields: [field])
            default: throw FirebaseError.invalidArgument("updateMask names an unknown field: \(field)")
            }
        }
        try Self.checkResponseType(config)
        config.updatedAt = services.clock.now
        try await services.admin.updateProviderConfig(config, requestID: call.requestID)
        return .json(200, try configJSON(config, project: call))
    }

    private func deleteConfig(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try configID(call.context.parameters["configId"])
        guard try await services.admin.deleteProviderConfig(id: id, requestID: call.requestID) else {
            throw Self.configNotFound
        }
        return .json(200, .object([:]))
    }

    /// `oidc.<id>` as the broker's provider id `<id>` (a-z, 0-9 and -, starting with a letter, at most 32; not
    /// a reserved one), else `INVALID_PROVIDER_ID`.
    private func configID(_ text: String?) throws -> String {
        guard let text, text.hasPrefix("oidc."), case let id = String(text.dropFirst(5)),
            ProviderRegistry.isValidID(id), !ProviderRegistry.reservedIDs.contains(id)
        else { throw FirebaseError("INVALID_PROVIDER_ID", "an OIDC provider id is oidc.<a-z, 0-9 and ->") }
        return id
    }

    /// The issuer: an `https` URL (`http` only on a loopback host), kept exactly as written.
    private static func issuer(_ text: String) throws -> String {
        guard let url = URL(string: text), let host = url.host, !host.isEmpty,
            url.scheme == "https" || (url.scheme == "http" && ["localhost", "127.0.0.1", "::1"].contains(host))
        else { throw FirebaseError("INVALID_CONFIG", "issuer must be an https URL") }
        return text
    }

    /// A config answers with an ID token, or with a code for which it needs its client secret.
    private static func checkResponseType(_ config: StoredOIDCProvider) throws {
        guard config.idTokenResponse || config.codeResponse else {
            throw FirebaseError("INVALID_CONFIG", "responseType needs idToken or code")
        }
        guard !config.codeResponse || config.sealedClientSecret != nil else {
            throw FirebaseError("INVALID_CONFIG", "responseType code needs a clientSecret")
        }
    }

    /// Sets `fields` (of `clientSecret`, `responseType`, `responseType.idToken`, `responseType.code`) from `body`.
    private func apply(_ body: FirebaseBody, to config: inout StoredOIDCProvider, fields: [String]) throws {
        let responseType = try body.object("responseType")
        for field in fields {
            switch field {
            case "clientSecret":
                guard let secret = try body.optionalString("clientSecret"), !secret.isEmpty else {
                    config.sealedClientSecret = nil
                    continue
                }
                guard let cipher = services.outboxCipher else {
                    throw FirebaseError("OPERATION_NOT_ALLOWED", "a clientSecret needs BROKER_ENCRYPTION_KEY")
                }
                config.sealedClientSecret = try cipher.seal(secret, context: Self.secretContext(config.id))
            case "responseType.idToken":
                if let flag = try responseType?.optionalBool("idToken") { config.idTokenResponse = flag }
            case "responseType.code":
                if let flag = try responseType?.optionalBool("code") { config.codeResponse = flag }
            default:
                try apply(body, to: &config, fields: ["responseType.idToken", "responseType.code"])
            }
        }
    }

    private static func secretContext(_ id: String) -> String { "oidc-client-secret:\(id)" }

    /// A config as Firebase answers it; the client secret opened.
    private func configJSON(_ config: StoredOIDCProvider, project call: FirebaseCall) throws -> JSONValue {
        let project = call.context.parameters["project"] ?? ""
        var fields: [String: JSONValue] = [
            "name": .string("projects/\(project)/oauthIdpConfigs/oidc.\(config.id)"),
            "clientId": .string(config.clientID), "issuer": .string(config.issuer), "enabled": .bool(config.enabled),
            "responseType": ["idToken": .bool(config.idTokenResponse), "code": .bool(config.codeResponse)],
        ]
        if let name = config.displayName { fields["displayName"] = .string(name) }
        if let sealed = config.sealedClientSecret, let cipher = services.outboxCipher {
            fields["clientSecret"] = .string(try cipher.open(sealed, context: Self.secretContext(config.id)))
        }
        return .object(fields)
    }
}
