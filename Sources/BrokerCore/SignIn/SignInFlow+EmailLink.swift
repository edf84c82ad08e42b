import Foundation

extension SignInFlow {
    /// Signs in with an email sign-in code (Firebase's `signInWithEmailLink`): grants a session on `surface`,
    /// stores it with the code's use and the account change
    /// (``ActionCodeService/signIn(email:code:session:requestID:)``),
    /// mints the tokens and counts the outcome like a password sign-in (`broker_signins_total{provider="password"}`).
    /// Returns the result and the outbox jobs queued with it (a takeover's Firebase revocation).
    public func signIn(
        emailLinkCode code: String, email: String, actionCodes: ActionCodeService, requestID: String,
        surface: SessionSurface = .native
    ) async throws -> (SignInResult, [OutboxJob]) {
        let provider = ProviderID.password.rawValue
        do {
            let (refreshToken, grant) = sessions.grant(provider: provider, surface: surface)
            let signedIn = try await actionCodes.signIn(email: email, code: code, session: grant, requestID: requestID)
            let tokens = try await sessions.tokens(for: signedIn.account, grant: grant, refreshToken: refreshToken)
            metrics.increment(
                "broker_signins_total",
                labels: ["provider": provider, "outcome": signedIn.isNewUser ? "created" : "success"])
            let result = SignInResult(
                account: signedIn.account, change: signedIn.change, tokens: tokens, signInProvider: provider)
            return (result, signedIn.jobs)
        } catch {
            let outcome = (error as? ActionCodeError).map(SignInFlow.actionCodeOutcome) ?? SignInFlow.outcomeCode(error)
            metrics.increment("broker_signins_total", labels: ["provider": provider, "outcome": outcome])
            await auditor.record(.signIn, uid: nil, provider: "emailLink", outcome: outcome, requestID: requestID)
            throw error
        }
    }

    /// The outcome label of a refused code (a fixed set, as metrics labels must be).
    static func actionCodeOutcome(_ error: ActionCodeError) -> String {
        switch error.code {
        case .invalidCode: "INVALID_OOB_CODE"
        case .expiredCode: "EXPIRED_OOB_CODE"
        case .wrongEmail: "INVALID_EMAIL"
        case .missingNewPassword, .accountNotFound, .invalidContinueURL: "INVALID_REQUEST"
        }
    }
}
