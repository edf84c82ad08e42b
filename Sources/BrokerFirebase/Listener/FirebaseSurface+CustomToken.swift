import BrokerCore
import BrokerModel
extension FirebaseSurface {
    /// `accounts:signInWithCustomToken` / `verifyCustomToken`: a custom token checked by
    /// ``FirebaseCustomTokenVerifier`` signs in to its uid, creating the account when none has it (`isNewUser`),
    /// unless it was minted before a takeover, a password reset or a deletion of its uid (`INVALID_CUSTOM_TOKEN`).
    func signInWithCustomToken(_ call: FirebaseCall) async throws -> HTTPResponse {
        let token = try call.body.string("token", missing: "MISSING_CUSTOM_TOKEN")
        let verifier = services.customTokens
        let result = try await services.signIn.signIn(
            customToken: {
                let verified = try verifier.verify(token)
                return CustomTokenProof(uid: verified.uid, issuedAt: verified.issuedAt, claims: verified.claims)
            }, requestID: call.requestID, surface: .firebase)
        var fields = sessionFields(result)
        fields["kind"] = Self.kind("VerifyCustomTokenResponse")
        fields["isNewUser"] = .bool(result.isNewUser)
        return Self.ok(fields)
    }
}
