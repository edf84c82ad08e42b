import BrokerIdentity
import BrokerModel
import BrokerStorage

/// Sign-in with a provider's token (contract section 2): the provider verifies it, and ``AccountService`` maps the
/// identity to an account by the linking rules.
struct ProviderTokenSignIn: SignInMethod {
    let request: SignInRequest
    /// The enabled provider the request names (``ProviderRegistry/resolve(_:)``); nil when none is.
    let provider: (any IdentityProvider)?
    let accounts: AccountService

    var label: String { request.provider.rawValue }

    /// An unknown provider's refusal is not counted: its name comes from the caller.
    func countsRefusal(_ error: any Error) -> Bool { provider != nil }

    func authenticate(_ context: SignInContext) async throws -> VerifiedIdentity {
        guard let provider else { throw SignInError(.providerNotEnabled) }
        return try await provider.verifyRecordingKind(request.credential, hints: request.hints)
    }

    func decide(_ proof: VerifiedIdentity, _ context: SignInContext) async throws -> SignInDecision {
        try await accounts.decide(proof)
    }

    func commit(
        _ proof: VerifiedIdentity, session: SessionGrant, context: SignInContext
    ) async throws -> CommittedSignIn {
        let outcome = try await accounts.signIn(SignInAttempt(proof, session: session, requestID: context.requestID))
        return CommittedSignIn(account: outcome.account, change: outcome.change)
    }
}
