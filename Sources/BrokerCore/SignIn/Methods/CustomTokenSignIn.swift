public import BrokerModel
import BrokerStorage
public import Foundation

/// What a verified custom token says: the uid, when it was minted, and the claims for the session's ID tokens.
public struct CustomTokenProof: Sendable {
    /// The account the token names.
    public var uid: AccountID
    /// Its `iat`.
    public var issuedAt: Date
    /// Its `claims` (for every ID token of the session), if any.
    public var claims: [String: JSONValue]?

    /// Creates a proof.
    public init(uid: AccountID, issuedAt: Date, claims: [String: JSONValue]?) {
        self.uid = uid
        self.issuedAt = issuedAt
        self.claims = claims
    }
}

/// Sign-in with a custom token: the surface's verifier checks the token; the account is created for an unknown uid, and
/// a token minted up to the uid's cutoff is refused
/// (``AccountService/customTokenSignIn(uid:issuedAt:session:requestID:)``).
struct CustomTokenSignIn: SignInMethod {
    let verify: @Sendable () async throws -> CustomTokenProof
    let accounts: AccountService

    var label: String { ProviderID.custom.rawValue }

    func sessionClaims(_ proof: CustomTokenProof) -> String? {
        proof.claims.flatMap { $0.isEmpty ? nil : String(decoding: JSONValue.object($0).serialized(), as: UTF8.self) }
    }

    func uid(of proof: CustomTokenProof) -> AccountID? { proof.uid }

    func authenticate(_ context: SignInContext) async throws -> CustomTokenProof { try await verify() }

    /// Not asked: whoever holds the service account vouches for the user (contract section 14).
    var secondFactor: SecondFactorRule { .notAsked }

    func decide(_ proof: CustomTokenProof, _ context: SignInContext) async throws -> SignInDecision {
        let account = try await accounts.account(id: proof.uid)
        return SignInDecision(
            account: account, change: account == nil ? .created : .none,
            credential: SignInCredential(provider: label, subject: proof.uid.rawValue),
            newAccount: account == nil ? AccountService.newCustomTokenAccount(proof.uid, at: accounts.clock.now) : nil)
    }

    func commit(
        _ proof: CustomTokenProof, session: SessionGrant, context: SignInContext
    ) async throws -> CommittedSignIn {
        let (account, isNewUser) = try await accounts.customTokenSignIn(
            uid: proof.uid, issuedAt: proof.issuedAt, session: session, requestID: context.requestID)
        return CommittedSignIn(account: account, change: isNewUser ? .created : .none)
    }
}
