import BrokerCore
import BrokerModel
extension NativeSurface {
    /// Passkeys (contract section 15): registration, list, rename and removal under `/v1/me/passkeys`, the
    /// discoverable sign-in under `/v1/signin/passkey` and the passwordless sign-up under `/v1/signup/passkey`. With
    /// `passkeys.enabled` false they answer 404 `PROVIDER_NOT_ENABLED`.
    func mountPasskeys(_ router: inout Router) {
        let services = self.services
        let selfService = services.selfService
        func me(_ method: String, _ pattern: String, _ handler: @escaping AuthenticatedHandler) {
            router.add(method, pattern, NativeSurface.signedIn(services, handler))
        }
        @Sendable func enabled() throws -> PasskeyService {
            guard let passkeys = services.passkeys else { throw PasskeyError(.notEnabled) }
            return passkeys
        }
        /// The account of the request's `Authorization` header, checked as every signed-in route checks it; nil
        /// without one.
        @Sendable func bearerUser(_ request: HTTPRequest) async throws -> SignedInUser? {
            guard request.headers["authorization"] != nil else { return nil }
            return try await NativeSurface.authenticateUser(request, services)
        }
        me("POST", "/v1/me/passkeys/options") { request, _, user in
            try request.allowOnlyQuery([])
            let passkeys = try enabled()
            try NativeBody.requireEmpty(request)
            try selfService.requireRecentSignIn(user)
            return .json(200, try await passkeys.registrationOptions(for: user.account))
        }
        me("POST", "/v1/me/passkeys") { request, context, user in
            try request.allowOnlyQuery([])
            _ = try enabled()  // 404 before the body is read
            let body = try NativeBody(request)
            try body.allowOnly(["credential", "name"])
            let credential = try body.webAuthnCredential("a RegistrationResponseJSON")
            let passkey = try await selfService.registerPasskey(
                user, credential: credential, name: try body.optionalString("name"),
                requestID: context.requestID)
            return .json(201, ["passkey": passkey.json])
        }
        me("GET", "/v1/me/passkeys") { request, _, user in
            try request.allowOnlyQuery([])
            let passkeys = try await enabled().passkeys(of: user.account.id)
            return .json(200, ["passkeys": .array(passkeys.map(\.json))])
        }
        me("PATCH", "/v1/me/passkeys/{id}") { request, context, user in
            try request.allowOnlyQuery([])
            let passkeys = try enabled()
            let body = try NativeBody(request)
            try body.allowOnly(["name"])
            guard body.has("name") else { throw APIError.invalidRequest("name is required (null removes it).") }
            let renamed = try await passkeys.rename(
                user.account.id, passkeyID: context.parameters["id"] ?? "", name: try body.optionalString("name"))
            return .json(200, ["passkey": renamed.json])
        }
        me("DELETE", "/v1/me/passkeys/{id}") { request, context, user in
            try request.allowOnlyQuery([])
            let passkeys = try enabled()
            try selfService.requireRecentSignIn(user)
            try await passkeys.remove(
                user.account.id, passkeyID: context.parameters["id"] ?? "", actor: .user, requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        router.add("POST", "/v1/signin/passkey/options") { request, _ in
            try request.allowOnlyQuery([])
            let passkeys = try enabled()
            try NativeBody.requireEmpty(request)
            return .json(200, try await passkeys.signInOptions())
        }
        router.add("POST", "/v1/signin/passkey") { request, context in
            try request.allowOnlyQuery([])
            _ = try enabled()  // 404 before the body is read
            let body = try NativeBody(request)
            try body.allowOnly(["credential"])
            let credential = try body.webAuthnCredential("an AuthenticationResponseJSON")
            let result = try await services.signIn.signIn(
                passkey: credential, requestID: context.requestID)
            return .json(200, result.tokens.body(user: result.account, isNewUser: false))
        }
        router.add("POST", "/v1/signup/passkey/options") { request, _ in
            try request.allowOnlyQuery([])
            let passkeys = try enabled()
            // An empty body asks for neither, as `{}` does.
            let body = request.body.isEmpty ? NativeBody(members: [:]) : try NativeBody(request)
            try body.allowOnly(["email", "displayName"])
            let email = try body.optionalString("email")
            let displayName = try body.optionalString("displayName")
            // With a guest's ID token, the options of its upgrade in place (contract section 13).
            let guest = try await bearerUser(request)?.account
            return .json(200, try await passkeys.signUpOptions(email: email, displayName: displayName, guest: guest))
        }
        router.add("POST", "/v1/signup/passkey") { request, context in
            try request.allowOnlyQuery([])
            _ = try enabled()  // 404 before the body is read
            let body = try NativeBody(request)
            try body.allowOnly(["credential", "name"])
            let credential = try body.webAuthnCredential("a RegistrationResponseJSON")
            let name = try body.optionalString("name")
            // With a guest's ID token, the guest's upgrade in place (contract section 13), as `POST /v1/signup`.
            if let guest = try await bearerUser(request) {
                let upgraded = try await services.signIn.upgrade(
                    guest, passkey: credential, name: name, requestID: context.requestID)
                return .json(200, upgraded.tokens.body(user: upgraded.account, isNewUser: false))
            }
            let result = try await services.signIn.signUp(
                passkey: credential, name: name, requestID: context.requestID)
            return .json(201, result.tokens.body(user: result.account, isNewUser: true))
        }
    }
}

extension NativeBody {
    /// The `credential` member: a WebAuthn `kind` object (`RegistrationResponseJSON`, `AuthenticationResponseJSON`).
    fileprivate func webAuthnCredential(_ kind: String) throws -> JSONValue {
        guard let credential = members["credential"], credential.objectValue != nil else {
            throw APIError.invalidRequest("credential is required and must be \(kind) object.")
        }
        return credential
    }
}
