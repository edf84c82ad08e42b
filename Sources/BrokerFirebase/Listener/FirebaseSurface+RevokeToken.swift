import BrokerCore
import BrokerIdentity
import BrokerModel
extension FirebaseSurface {
    /// v2 `accounts:revokeToken`, which the iOS SDK's `revokeToken(withAuthorizationCode:)` sends before an account
    /// is deleted (contract sections 10 and 11): `providerId` (a provider that revokes codes),
    /// `tokenType` `3` (`AUTHORIZATION_CODE`, the only type served), `token` (the code) and the user's `idToken`.
    /// The code is exchanged now; the token it yields is revoked through the outbox. A provider the user has no
    /// identity of, or that cannot revoke, is `INVALID_PROVIDER_ID`; a provider without a client secret
    /// `OPERATION_NOT_ALLOWED`; a refused code `INVALID_IDP_RESPONSE`. Answers `{}`.
    func mountRevokeToken(on routes: inout FirebaseRouteTable) {
        routes.add("POST", Self.revokeTokenPath, access: .client) { [self] call in try await revokeToken(call) }
    }

    /// The v2 `accounts:revokeToken` path.
    static let revokeTokenPath = FirebaseEndpoints.identityToolkitV2Path + "/accounts:revokeToken"

    /// The `tokenType` values of an authorization code: the iOS SDK's number and the enum's name.
    static let authorizationCodeTypes: Set<String> = ["3", "AUTHORIZATION_CODE"]

    func revokeToken(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let providerName = try body.string("providerId", missing: "INVALID_PROVIDER_ID")
        let tokenType = try body.optionalString("tokenType") ?? ""
        let token = try body.string("token", missing: "MISSING_TOKEN")
        let user = try await authenticated(call)
        guard Self.authorizationCodeTypes.contains(tokenType) else {
            throw FirebaseError.operationNotAllowed("Only an authorization code (tokenType 3) can be revoked here.")
        }
        guard let id = services.providers.firebaseNames[providerName],
            let provider = services.providers.provider(id) as? any AuthorizationCodeRevoking,
            let identity = user.account.identity(id)
        else {
            throw FirebaseError("INVALID_PROVIDER_ID", "The user has no identity of a provider that revokes codes.")
        }
        guard provider.revokesAuthorizationCodes else {
            throw FirebaseError.operationNotAllowed("The provider has no client secret to exchange codes with.")
        }
        try await services.selfService.revokeProviderToken(
            user.signedIn, identity: identity,
            provider: provider, authorizationCode: token, requestID: call.requestID)
        return Self.ok([:])
    }
}
