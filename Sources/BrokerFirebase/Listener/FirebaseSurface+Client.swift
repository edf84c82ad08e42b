import BrokerCore
import BrokerModel
extension FirebaseSurface {
    /// The client API the apps' SDKs call with an API key: sign-up, sign-in, lookup, update, delete, the token
    /// refresh, and their legacy v3 names (the iOS SDK's: `signupNewUser`, `verifyPassword`, `verifyAssertion`,
    /// `verifyCustomToken`, `getAccountInfo`, `setAccountInfo`, `deleteAccount`).
    func mountClient(on routes: inout FirebaseRouteTable) {
        routes.addClient("accounts:signUp", legacy: "signupNewUser") { try await signUp($0) }
        routes.addClient("accounts:signInWithPassword", legacy: "verifyPassword") { try await signInWithPassword($0) }
        routes.addClient("accounts:signInWithIdp", legacy: "verifyAssertion") { try await signInWithIdp($0) }
        routes.addClient("accounts:signInWithCustomToken", legacy: "verifyCustomToken") {
            try await signInWithCustomToken($0)
        }
        // As admin (`Bearer owner`, no `idToken`) these answer as the project paths do (adminOnClientPath).
        routes.addClient("accounts:lookup", legacy: "getAccountInfo") { call in
            if let answer = try await adminOnClientPath("lookup", call) { return answer }
            return try await lookup(call)
        }
        routes.addClient("accounts:update", legacy: "setAccountInfo") { call in
            if let answer = try await adminOnClientPath("update", call) { return answer }
            return try await update(call)
        }
        routes.addClient("accounts:delete", legacy: "deleteAccount") { call in
            if let answer = try await adminOnClientPath("delete", call) { return answer }
            return try await deleteAccount(call)
        }
        routes.add("POST", FirebaseEndpoints.secureTokenPath, access: .client) { try await refresh($0) }
    }

    /// The fields every sign-in answer shares: `localId`, `idToken`, `refreshToken`, `expiresIn` (a string of
    /// seconds, as Firebase writes it).
    func sessionFields(_ result: SignInResult) -> [String: JSONValue] {
        [
            "localId": .string(result.account.id.rawValue), "idToken": .string(result.tokens.idToken),
            "refreshToken": .string(result.tokens.refreshToken), "expiresIn": .string(String(result.tokens.expiresIn)),
        ]
    }

    /// `kind` for a v1 or legacy answer (`identitytoolkit#SignupNewUserResponse`).
    static func kind(_ name: String) -> JSONValue { .string("identitytoolkit#" + name) }

    /// A 200 with `fields`.
    static func ok(_ fields: [String: JSONValue]) -> HTTPResponse { .json(200, .object(fields)) }

    /// The signed-in user of a call carrying `idToken`, or Firebase's refusal (`MISSING_ID_TOKEN`, ...).
    func authenticated(_ call: FirebaseCall) async throws -> FirebaseAuthenticatedUser {
        try await idTokens.verify(try call.body.string("idToken", missing: "MISSING_ID_TOKEN"))
    }
}
