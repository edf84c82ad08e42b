public import BrokerModel

/// What the **decide** phase of a sign-in found, read before anything is written: the account the sign-in reaches
/// and what it will do to it. The phases between authentication and commit (second factor, hooks) work from it;
/// the commit decides again inside its transaction, so a decision never writes and a race is settled there.
public struct SignInDecision: Sendable {
    /// The account the sign-in reaches, as read; nil when it creates one (or when a provider's own linking rule
    /// decides in the commit, which then links or creates).
    public var account: Account?
    /// What the sign-in is expected to do to it.
    public var change: SignInOutcome.Change
    /// The credential presented, as a hook is told of it (`provider`, `subject`, `email`, `emailVerified`).
    public var credential: SignInCredential
    /// The account the sign-in would store, as it would store it (email, verified, name, photo, identities, guest
    /// or not), for a decision that creates one: what `beforeCreate` is told of (its uid is not told: the account
    /// is not stored yet). Nil when the method cannot say before its commit.
    public var newAccount: Account?
    /// What the commit would store of a provider's identity: for a ``SignInOutcome/Change/linked`` decision the
    /// link, for a returning one the provider's new token; a sign-in held for its second factor stores it only when
    /// the second factor completes (``HeldLink``).
    var heldLink: HeldLink?
    /// The credential's single-use mark: a sign-in held for its second factor spends it when it is held, so that
    /// the credential holds no second sign-in (``SecondFactorService/hold(_:signInProvider:surface:link:consuming:)``).
    var singleUse: SingleUseMark?

    /// Creates a decision.
    public init(
        account: Account?, change: SignInOutcome.Change, credential: SignInCredential, newAccount: Account? = nil
    ) {
        self.account = account
        self.change = change
        self.credential = credential
        self.newAccount = newAccount
    }

    /// Whether the sign-in stores a new account.
    public var creates: Bool { change == .created }
}

/// The credential a sign-in presented, in the terms a hook is told of it (contract section 16); never a token.
public struct SignInCredential: Sendable, Equatable {
    /// The method's label: a provider's id, `password`, `custom`, `emailLink`.
    public var provider: String
    /// The provider's subject, for a provider token.
    public var subject: String?
    /// The email the credential carries or names.
    public var email: String?
    /// Whether the credential vouches for that email.
    public var emailVerified: Bool

    /// Creates a credential's description.
    public init(provider: String, subject: String? = nil, email: String? = nil, emailVerified: Bool = false) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
    }
}

/// How a method stands toward the **second factor** phase.
public enum SecondFactorRule: Sendable {
    /// An account with a second factor must complete it (a password, a provider token, an email link).
    case asked
    /// The method proves both factors (a passkey with user verification; the second factor's own method).
    case satisfied
    /// The method is not asked (a custom token: whoever holds the service account vouches for the user).
    case notAsked
}

/// The second-factor phase: asked, for a decision that signs in to an existing account without a takeover, whether
/// the sign-in must be completed with a second factor. Runs outside any transaction; when it answers a pending
/// sign-in, nothing of the sign-in is stored but what the phase itself stores (the pending credential).
public protocol SecondFactorPhase: Sendable {
    /// The pending sign-in to complete with a second factor, or nil to go on; `method` is the session's sign-in
    /// provider (the method's ``SignInMethod/sessionProvider(_:on:)``), which the completed sign-in's session keeps.
    func challenge(
        _ decision: SignInDecision, method: String, context: SignInContext
    ) async throws -> PendingSecondFactor?
}

/// The hooks phase: the app's say in a sign-in, asked once per sign-in just before the commit, outside any
/// transaction (contract section 16). It may refuse (its error is the sign-in's refusal, counted and audited once
/// by ``SignInFlow/run(_:_:)``) or amend the sign-in.
public protocol SignInHooks: Sendable {
    /// The app's answer for `decision` (`beforeCreate` when it creates, then `beforeSignIn`).
    func before(_ decision: SignInDecision, method: String, context: SignInContext) async throws -> SignInAmendment
}

/// The optional phases of every sign-in, chosen at composition: none by default, and then a sign-in reads nothing
/// more than its method does (the decide phase runs only for a phase that needs it).
public struct SignInPhases: Sendable {
    /// The second-factor phase, when second factors are enabled.
    public var secondFactor: (any SecondFactorPhase)?
    /// The hooks phase, when hooks are configured.
    public var hooks: (any SignInHooks)?

    /// Creates the phases.
    public init(secondFactor: (any SecondFactorPhase)? = nil, hooks: (any SignInHooks)? = nil) {
        self.secondFactor = secondFactor
        self.hooks = hooks
    }

    /// Whether a sign-in needs its decision read before the commit.
    var needDecision: Bool { secondFactor != nil || hooks != nil }
}

/// A sign-in that stopped at the second factor, thrown by the surfaces' entry points to ``SignInFlow`` that answer a
/// finished sign-in only; ``SignInFlow/run(_:_:)`` answers ``SignInStep/secondFactorRequired(_:)`` instead.
public struct SecondFactorRequired: CodedError {
    /// The pending sign-in.
    public var pending: PendingSecondFactor

    /// Its one code.
    public enum Code: String, Sendable {
        /// The sign-in waits for its second factor.
        case mfaRequired
    }

    /// ``Code/mfaRequired``.
    public var code: Code { .mfaRequired }
    /// None.
    public var detail: String { "" }

    /// `MFA_REQUIRED`, with the pending credential and the factors (``CodedError``).
    public var refusal: Refusal? { .secondFactorRequired(pending) }
}
