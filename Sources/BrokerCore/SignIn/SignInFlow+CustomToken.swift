extension SignInFlow {
    /// Signs in with a verified Firebase custom token's `uid` (the Firebase listener's
    /// `accounts:signInWithCustomToken`): the account is created when unknown (`isNewUser`). The token itself is
    /// checked by the surface; this is the grant, the write and the minting every sign-in shares.
    public func signIn(customTokenUID uid: AccountID, requestID: String, surface: SessionSurface) async throws -> SignInResult {
        let provider = ProviderID.custom.rawValue
        do {
            let (refreshToken, grant) = sessions.grant(provider: provider, surface: surface)
            let (account, isNewUser) = try await accounts.customTokenSignIn(uid: uid, session: grant, requestID: requestID)
            let tokens = try await sessions.tokens(for: account, grant: grant, refreshToken: refreshToken)
            metrics.increment(
                "broker_signins_total", labels: ["provider": provider, "outcome": isNewUser ? "created" : "success"])
            return SignInResult(
                account: account, change: isNewUser ? .created : .none, tokens: tokens, signInProvider: provider)
        } catch {
            let code = SignInFlow.outcomeCode(error)
            metrics.increment("broker_signins_total", labels: ["provider": provider, "outcome": code])
            await auditor.record("sign_in", uid: uid, provider: provider, outcome: code, requestID: requestID)
            throw error
        }
    }
}
