package import BrokerIdentity
public import BrokerModel

/// A sign-in with a provider, as any surface hands it to the ``SignInFlow``.
public struct SignInRequest: Sendable {
    /// The provider's id (a config entry's key).
    public var provider: ProviderID
    /// What the app presented.
    public var credential: Credential
    /// What came with it.
    public var hints: CredentialHints
    /// The request's id, stamped on the sign-in's audit events and log lines.
    public var requestID: String
    /// The listener the session is made for (its tokens' shape; it works only there).
    public var surface: SessionSurface
    /// The enabled provider ``provider`` names, when the surface already found it (to read the request's credential):
    /// the sign-in uses it rather than look it up again (a provider managed at run time is a read of its row).
    package var resolved: (any IdentityProvider)?

    /// Creates a request.
    public init(
        provider: ProviderID, credential: Credential, hints: CredentialHints = .none, requestID: String,
        surface: SessionSurface = .native
    ) {
        self.surface = surface
        self.provider = provider
        self.credential = credential
        self.hints = hints
        self.requestID = requestID
    }
}

/// What a sign-in produced: the account, what happened to it, and the session's tokens.
public struct SignInResult: Sendable {
    /// The account signed in to (as stored by the sign-in).
    public var account: Account
    /// What the sign-in did to it.
    public var change: SignInOutcome.Change
    /// The new session's tokens.
    public var tokens: SessionTokens
    /// The provider id the session was made with (`password` for email and password).
    public var signInProvider: String
    /// The outbox jobs queued with the sign-in (to wake the worker once it has committed).
    public var jobs: [OutboxJob] = []

    /// Whether the sign-in created the account.
    public var isNewUser: Bool { change == .created }
}

/// Why the sign-in flow itself refused a request (the provider and account layers have their own errors).
public struct SignInError: CodedError {
    /// The stable reasons.
    public enum Code: String, Sendable {
        /// No enabled provider has that id.
        case providerNotEnabled
        /// The app's hook refused the sign-in; the detail is the app's message, shown to the user.
        case blockedByHook
        /// The app's hook did not answer and its `onFailure` is `deny`.
        case hookUnavailable
    }

    /// The reason.
    public var code: Code
    /// Detail for logs.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}

extension SignInError {
    /// The sign-in flow's refusal (``CodedError``).
    public var refusal: Refusal? {
        switch code {
        case .providerNotEnabled: .providerNotEnabled
        case .blockedByHook: .blockedByHook(message: detail)
        case .hookUnavailable: .hookUnavailable
        }
    }
}
