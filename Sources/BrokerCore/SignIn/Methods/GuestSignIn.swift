import BrokerModel
import BrokerStorage

/// A guest's sign-in (`POST /v1/signin/anonymous`, the listener's anonymous `signUp`; contract section 13): always a
/// new account, with no email and no identity, counted per client address; its sessions' `sign_in_provider` is
/// `anonymous` on every surface.
struct GuestSignIn: SignInMethod {
    let guests: GuestService?
    /// The client address the per-address limit counts (``RequestOrigin/clientAddress``).
    let address: String

    var label: String { ProviderID.anonymous.rawValue }

    /// A disabled guest sign-in is not counted, as an unknown provider is not.
    func countsRefusal(_ error: any Error) -> Bool { guests?.settings.enabled == true }

    /// A guest has no second factor.
    var secondFactor: SecondFactorRule { .notAsked }

    func uid(of proof: Account) -> AccountID? { proof.id }

    func authenticate(_ context: SignInContext) async throws -> Account {
        guard let guests else { throw SignInError(.providerNotEnabled, "anonymous sign-in is disabled") }
        return try await guests.newGuest(address: address)
    }

    func decide(_ proof: Account, _ context: SignInContext) async throws -> SignInDecision {
        SignInDecision(
            account: nil, change: .created, credential: SignInCredential(provider: label), newAccount: proof)
    }

    func commit(_ proof: Account, session: SessionGrant, context: SignInContext) async throws -> CommittedSignIn {
        guard let guests else { throw SignInError(.providerNotEnabled) }
        let account = try await guests.create(proof, session: session, requestID: context.requestID)
        return CommittedSignIn(account: account, change: .created)
    }
}
