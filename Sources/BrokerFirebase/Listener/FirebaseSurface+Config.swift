import BrokerCore
import BrokerCrypto
import BrokerModel
import Foundation

extension FirebaseSurface {
    /// What Firebase's client SDKs ask about the project before or instead of a sign-in: `createAuthUri` (the
    /// sign-in methods of an email), `getProjectConfig` (the project id and authorized domains) and v2
    /// `recaptchaConfig` (reCAPTCHA is never enforced here).
    func mountConfig(on routes: inout FirebaseRouteTable) {
        routes.addClient("accounts:createAuthUri", legacy: "createAuthUri") { try await createAuthUri($0) }
        // The iOS SDK's legacy GET and the JS SDK's `GET /v1/projects`.
        routes.add("GET", FirebaseEndpoints.legacyRelyingPartyPath + "/getProjectConfig", access: .client) { _ in
            projectConfig()
        }
        routes.add("GET", FirebaseEndpoints.identityToolkitPath + "/projects", access: .client) { _ in projectConfig() }
        routes.add("GET", Self.recaptchaConfigPath, access: .client) { _ in Self.recaptchaConfig() }
        // The Admin SDKs' tenant-aware calls: refused, never answered from the one user pool.
        for pattern in Self.tenantPatterns {
            for method in ["GET", "POST", "PATCH", "DELETE"] {
                routes.add(method, pattern, access: .client) { _ in throw FirebaseError.tenantsNotServed }
            }
        }
    }

    /// The paths of the Admin SDKs' tenant management and tenant-scoped calls (v1 accounts, v2 tenants and their
    /// provider configs).
    static let tenantPatterns: [String] = {
        let v1 = FirebaseEndpoints.identityToolkitPath + "/projects/{project}/tenants"
        let v2 = FirebaseEndpoints.identityToolkitV2Path + "/projects/{project}/tenants"
        return [
            v1 + "/{tenant}", v1 + "/{tenant}/{call}", v1 + "/{tenant}/{call}/{id}",
            v2, v2 + "/{tenant}", v2 + "/{tenant}/{call}", v2 + "/{tenant}/{call}/{id}",
        ]
    }()

    /// v2 `recaptchaConfig`, which the SDKs read before a password sign-in or sign-up.
    static let recaptchaConfigPath = FirebaseEndpoints.identityToolkitV2Path + "/recaptchaConfig"

    /// `createAuthUri` with an email `identifier` and a `continueUri`: the email's sign-in methods (`password` and
    /// the identities' provider ids) and whether an account holds it. With `emailEnumerationProtection` (the
    /// default, as in Firebase projects made since 2023) nothing is said about the email: no `registered`, no
    /// methods, and no account is read. A `providerId` asks for a redirect sign-in, which the broker does not
    /// offer: `OPERATION_NOT_ALLOWED`.
    func createAuthUri(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let identifier = try body.string("identifier", missing: "MISSING_IDENTIFIER")
        _ = try body.string("continueUri", missing: "MISSING_CONTINUE_URI")
        if try body.optionalString("providerId") != nil {
            throw FirebaseError("OPERATION_NOT_ALLOWED", "Redirect sign-in is not offered by this listener.")
        }
        guard PasswordPolicy.isValidEmail(identifier) else { throw FirebaseError("INVALID_IDENTIFIER") }
        var fields: [String: JSONValue] = [
            "kind": Self.kind("CreateAuthUriResponse"), "sessionId": .string(Self.randomSessionID()),
        ]
        guard !settings.emailEnumerationProtection else { return Self.ok(fields) }
        guard let account = try await services.accounts.account(email: identifier) else {
            fields["registered"] = false
            return Self.ok(fields)
        }
        var methods: [String] = account.hasUsablePassword ? [FirebaseUserInfo.passwordProviderID] : []
        for identity in account.identities {
            let name = services.providers.firebaseID(of: identity)
            if !methods.contains(name) { methods.append(name) }
        }
        fields["registered"] = true
        fields["allProviders"] = .array(methods.map(JSONValue.string))
        fields["signinMethods"] = .array(methods.map(JSONValue.string))
        return Self.ok(fields)
    }

    /// The project id and the domains web sign-ins may come from: the loopback names and the hosts of
    /// `firebaseCompat.allowedOrigins`.
    func projectConfig() -> HTTPResponse {
        var domains = ["localhost", "127.0.0.1"]
        for origin in settings.allowedOrigins {
            if let host = URLComponents(string: origin)?.host, !domains.contains(host) { domains.append(host) }
        }
        return Self.ok(["projectId": .string(projectID), "authorizedDomains": .array(domains.map(JSONValue.string))])
    }

    /// reCAPTCHA off for every provider: no key, nothing enforced.
    static func recaptchaConfig() -> HTTPResponse {
        let providers = ["EMAIL_PASSWORD_PROVIDER", "PHONE_PROVIDER"]
        return ok([
            "recaptchaEnforcementState": .array(
                providers.map { ["provider": .string($0), "enforcementState": "OFF"] })
        ])
    }

    /// An opaque id for a `createAuthUri` answer (the SDKs keep it and never send it back to this listener).
    static func randomSessionID() -> String {
        Base64URL.encode(SecureRandom.bytes(16))
    }
}
