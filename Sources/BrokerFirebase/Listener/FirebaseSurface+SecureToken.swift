import BrokerCore
import BrokerModel
extension FirebaseSurface {
    /// ``FirebaseEndpoints/secureTokenPath``: `grant_type=refresh_token` (JSON, with the iOS SDK's `grantType` /
    /// `refreshToken` names too, or form-encoded as the JS SDK sends it). As Firebase's, the refresh token does not
    /// rotate (``FirebaseSessionFormat/rotatesRefreshTokens``): the answer carries the token sent, valid until
    /// its session is revoked. A revoked session is `TOKEN_EXPIRED`, a disabled user
    /// `USER_DISABLED`, a deleted one `USER_NOT_FOUND`: the codes on which the SDKs sign the user out. An unknown
    /// token, or one of the native API's sessions, is `INVALID_REFRESH_TOKEN`.
    func refresh(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let grant = try body.optionalString("grant_type") ?? body.optionalString("grantType")
        guard let grant, !grant.isEmpty else { throw FirebaseError("MISSING_GRANT_TYPE") }
        guard grant == "refresh_token" else { throw FirebaseError("INVALID_GRANT_TYPE") }
        let token = try body.optionalString("refresh_token") ?? body.optionalString("refreshToken")
        guard let token, !token.isEmpty else { throw FirebaseError("MISSING_REFRESH_TOKEN") }
        do {
            let (account, tokens) = try await services.sessions.refresh(token, surface: .firebase)
            return Self.ok([
                "access_token": .string(tokens.idToken), "expires_in": .string(String(tokens.expiresIn)),
                "token_type": "Bearer", "refresh_token": .string(tokens.refreshToken), "id_token": .string(tokens.idToken),
                "user_id": .string(account.id.rawValue), "project_id": .string(projectID),
            ])
        } catch let error as SessionError where error.code == .invalidRefreshToken {
            switch error.refreshProblem {
            case .accountGone: throw FirebaseError.userNotFound
            case .ended: throw FirebaseError.tokenExpired
            case .unknown, nil: throw FirebaseError("INVALID_REFRESH_TOKEN")
            }
        }
    }
}
