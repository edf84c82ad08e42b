public import Foundation

extension SignInFlow {
    /// Signs in with a verified Firebase custom token's `uid` (the Firebase listener's
    /// `accounts:signInWithCustomToken`): the account is created when unknown (`isNewUser`); a token issued
    /// (`issuedAt`, its `iat`) up to the uid's cutoff is refused
    /// (``AccountService/customTokenSignIn(uid:issuedAt:session:requestID:)``). The token itself is checked by the
    /// surface; this is the grant, the write and the minting every sign-in shares. The token's `claims` go into
    /// every ID token of the session (as Firebase puts them in the ID token), not on the account.
    public func signIn(
        customTokenUID uid: AccountID, issuedAt: Date, claims: [String: JSONValue]? = nil, requestID: String,
        surface: SessionSurface
    ) async throws -> SignInResult {
        let provider = ProviderID.custom.rawValue
        do {
            let text = claims.flatMap { $0.isEmpty ? nil : String(decoding: JSONValue.object($0).serialized(), as: UTF8.self) }
            let (refreshToken, grant) = sessions.grant(provider: provider, surface: surface, claims: text)
            let (account, isNewUser) = try await accounts.customTokenSignIn(
                uid: uid, issuedAt: issuedAt, session: grant, requestID: requestID)
            let tokens = try await sessions.tokens(for: account, grant: grant, refreshToken: refreshToken)
            metrics.increment(
                "broker_signins_total", labels: ["provider": provider, "outcome": isNewUser ? "created" : "success"])
            return SignInResult(
                account: account, change: isNewUser ? .created : .none, tokens: tokens, signInProvider: provider)
        } catch {
            let code = SignInFlow.outcomeCode(error)
            metrics.increment("broker_signins_total", labels: ["provider": provider, "outcome": code])
            await auditor.record(.signIn, uid: uid, provider: provider, outcome: code, requestID: requestID)
            throw error
        }
    }
}
