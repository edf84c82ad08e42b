import BrokerIdentity
public import BrokerModel
import BrokerStorage

/// A sign-in on its way to an account: the verified identity, and what its transaction must also store.
public struct SignInAttempt: Sendable {
    /// The provider's verdict.
    public var verified: VerifiedIdentity
    /// The session stored with the sign-in, in the same transaction.
    public var session: SessionGrant?
    /// The request's id: the sign-in's audit events, stamped with it, are recorded in its transaction. Without
    /// one, none are.
    public var requestID: String?

    /// Creates an attempt.
    public init(_ verified: VerifiedIdentity, session: SessionGrant? = nil, requestID: String? = nil) {
        self.verified = verified
        self.session = session
        self.requestID = requestID
    }

    /// Who the user is.
    public var identity: ExternalIdentity { verified.identity }
}

/// What carries out a provider's ``LinkingRule`` for an identity that is linked to no account yet, used instead of
/// ``LinkingPolicy`` (a returning identity always signs in to its account). It works through the ``AccountService``
/// it is given, which holds one strategy per rule (``LinkingRule/builtInStrategies``).
public protocol LinkingStrategy: Sendable {
    /// Maps `attempt`, whose identity is linked to no account, to an account. A refusal writes nothing.
    func signInUnlinked(_ attempt: SignInAttempt, accounts: AccountService) async throws -> SignInOutcome
}
