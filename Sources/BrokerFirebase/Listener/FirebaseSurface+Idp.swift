import BrokerCore
import BrokerIdentity
import BrokerModel
import Foundation

extension FirebaseSurface {
    /// The credential a `signInWithIdp` `postBody` carries, decoded into a ``SignInRequest`` for the flow.
    struct IdpAssertion: Sendable {
        /// The name sent: the Firebase id an identity the credential links gets
        /// (``ProviderRegistry/firebaseID(of:kind:)-swift.type.method``).
        var domainID: String
        /// The broker's request.
        var request: SignInRequest
        /// The provider token (for `returnIdpCredential`).
        var token: String
    }

    /// Decodes `postBody` (`providerId=<firebase id>&id_token=…[&nonce=<raw>]`, `providerId=oidc.<id>&id_token=…`,
    /// `providerId=<id>&access_token=…`; a `user` JSON, as the iOS SDK forwards it, gives the name) and
    /// finds the enabled provider it names for that kind of token (``ProviderRegistry/resolve(firebaseName:kind:)``,
    /// `oidc.<id>` also a provider managed at run time):
    /// any other name is `INVALID_PROVIDER_ID` (contract section 11).
    func idpAssertion(_ call: FirebaseCall) async throws -> IdpAssertion {
        guard let postBody = try call.body.optionalString("postBody"), !postBody.isEmpty else {
            throw FirebaseError("INVALID_CREDENTIAL_OR_PROVIDER_ID", "Invalid IdP response/credential: postBody is required.")
        }
        let fields = HTTPRequest(method: "POST", path: "/", body: Array(postBody.utf8)).formFields
        guard let firebaseID = fields["providerId"], !firebaseID.isEmpty else {
            throw FirebaseError("INVALID_CREDENTIAL_OR_PROVIDER_ID", "Invalid IdP response/credential: no providerId.")
        }
        let credential: Credential
        let token: String
        if let idToken = fields["id_token"], !idToken.isEmpty {
            credential = .idToken(idToken, rawNonce: fields["nonce"].flatMap { $0.isEmpty ? nil : $0 })
            token = idToken
        } else if let accessToken = fields["access_token"], !accessToken.isEmpty {
            credential = .accessToken(accessToken)
            token = accessToken
        } else {
            throw FirebaseError("INVALID_IDP_RESPONSE", "id_token or access_token is required.")
        }
        guard let provider = try await services.providers.resolve(firebaseName: firebaseID, kind: credential.kind)
        else {
            throw FirebaseError("INVALID_PROVIDER_ID", "Provider Id is not supported.")
        }
        var request = SignInRequest(
            provider: provider.id, credential: credential, hints: CredentialHints(fullName: Self.fullName(fields["user"])),
            requestID: call.requestID, surface: .firebase)
        request.resolved = provider
        return IdpAssertion(domainID: firebaseID, request: request, token: token)
    }

    /// The name in the `user` JSON (`{"name": {"firstName", "lastName"}}`) the iOS SDK forwards from the
    /// provider's first authorization.
    static func fullName(_ user: String?) -> String? {
        guard let user, user.utf8.count <= 4096, let name = JSONValue.parse(Array(user.utf8))?["name"] else { return nil }
        let parts = [name["firstName"]?.stringValue, name["lastName"]?.stringValue].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// `accounts:signInWithIdp` / `verifyAssertion`: a provider token verified by the same provider and linked by
    /// the same rules as the native API; with `idToken`, the identity is linked to that signed-in user instead.
    /// An email held by another account is Firebase's `needConfirmation` answer (200, no tokens); an identity
    /// linked to another account is `FEDERATED_USER_ID_ALREADY_LINKED` (in a 200 with `errorMessage` when
    /// `returnIdpCredential`). The answer's `providerId` names the identity the sign-in reached, as its session's
    /// `sign_in_provider` does (an identity linked by an ID token keeps `oidc.<id>` after an access token).
    func signInWithIdp(_ call: FirebaseCall) async throws -> HTTPResponse {
        let assertion = try await idpAssertion(call)
        let returnCredential = try call.body.flag("returnIdpCredential")
        var fields: [String: JSONValue] = [
            "kind": Self.kind("VerifyAssertionResponse"), "providerId": .string(assertion.domainID),
        ]
        if returnCredential {
            switch assertion.request.credential {
            case .idToken: fields["oauthIdToken"] = .string(assertion.token)
            case .accessToken: fields["oauthAccessToken"] = .string(assertion.token)
            }
        }
        do {
            let result: SignInResult
            if call.body.has("idToken") {
                // A guest's link is its upgrade in place (contract section 13); another's needs a recent sign-in
                // (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`), where Firebase asks for none, and its new session keeps the
                // asking one's `auth_time` (contract section 4).
                result = try await services.signIn.linkOrUpgradeRenewing(
                    try await authenticated(call).signedIn, assertion.request)
            } else {
                result = try await services.signIn.signIn(assertion.request)
            }
            fields.merge(sessionFields(result)) { _, session in session }
            let account = result.account
            let identity = account.identities.first { $0.provider == assertion.request.provider }
            if let identity { fields["providerId"] = .string(services.providers.firebaseID(of: identity)) }
            fields["federatedId"] = identity.map { .string($0.subject) }
            fields["email"] = (identity?.email ?? account.email).map(JSONValue.string)
            fields["emailVerified"] = .bool(account.emailVerified)
            fields["displayName"] = account.displayName.map(JSONValue.string)
            fields["photoUrl"] = account.photoURL.map(JSONValue.string)
            fields["isNewUser"] = .bool(result.isNewUser)
            if let identity {
                var raw: [String: JSONValue] = ["sub": .string(identity.subject)]
                if let email = identity.email { raw["email"] = .string(email) }
                fields["rawUserInfo"] = .string(String(decoding: JSONValue.object(raw).serialized(), as: UTF8.self))
            }
            return Self.ok(fields)
        } catch let error as AccountError where error.code == .accountExistsWithDifferentCredential {
            // Firebase's answer when the email belongs to an account of other providers: the SDK turns it into
            // "account exists with different credential" and nothing is stored.
            fields["needConfirmation"] = true
            let verified = error.existingProviders.map {
                services.providers.firebaseID(of: ProviderID($0), kind: error.existingKinds[ProviderID($0)])
            }
            .filter { $0 != FirebaseUserInfo.passwordProviderID }
            fields["verifiedProvider"] = .array(verified.map(JSONValue.string))
            return Self.ok(fields)
        } catch let error as AccountError where error.code == .identityAlreadyLinked && returnCredential {
            fields["errorMessage"] = "FEDERATED_USER_ID_ALREADY_LINKED"
            return Self.ok(fields)
        }
    }
}
