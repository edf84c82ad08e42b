import BrokerModel
import BrokerStorage

/// Sign-in with an email sign-in code: the code is checked and used, and the account found, created or taken over, in
/// one transaction with the session (``ActionCodeService/signIn(email:code:session:requestID:)``). Counted and audited
/// as `emailLink`; its sessions' `sign_in_provider` is `password`, as the compatibility contract names an email-link
/// sign-in.
struct EmailLinkSignIn: SignInMethod {
    let email: String
    let code: String
    let actionCodes: ActionCodeService

    var label: String { "emailLink" }

    func sessionProvider(on surface: SessionSurface) -> String { ProviderID.password.rawValue }

    /// The code is checked where it is used, in the commit's transaction, and by ``decide(_:_:)`` when a phase needs
    /// the decision.
    func authenticate(_ context: SignInContext) async throws -> Bool { true }

    /// The code checked (unused, unexpired, an email sign-in's, for this address), so that no phase runs on an
    /// unproven email; a sign-in held for its second factor spends it when it is held.
    func decide(_ proof: Bool, _ context: SignInContext) async throws -> SignInDecision {
        try await actionCodes.decideSignIn(email: email, code: code)
    }

    func commit(_ proof: Bool, session: SessionGrant, context: SignInContext) async throws -> CommittedSignIn {
        let signedIn = try await actionCodes.signIn(
            email: email, code: code, session: session, requestID: context.requestID)
        return CommittedSignIn(account: signedIn.account, change: signedIn.change, jobs: signedIn.jobs)
    }
}
