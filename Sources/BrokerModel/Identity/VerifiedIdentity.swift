public import Foundation

/// Who a provider says the user is. Raw claims stay inside the provider.
public struct ExternalIdentity: Sendable, Equatable {
    /// The provider.
    public var provider: ProviderID
    /// The provider's stable user id.
    public var subject: String
    /// The email the provider gave, if any.
    public var email: String?
    /// Whether the provider vouches for that email.
    public var emailVerified: Bool
    /// A display name, if any.
    public var displayName: String?
    /// A photo URL, if any.
    public var photoURL: String?

    /// Creates an identity.
    public init(
        provider: ProviderID, subject: String, email: String? = nil, emailVerified: Bool = false,
        displayName: String? = nil, photoURL: String? = nil
    ) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
    }
}

/// A provider's own rule for an identity that is linked to no account yet, by name. The provider names it; the
/// account service carries it out with the ``LinkingStrategy`` registered for it, since a provider never sees
/// accounts.
public struct LinkingRule: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The rule's name (`<provider>.<rule>`).
    public var rawValue: String

    /// The rule named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The rule named `name`.
    public init(_ name: String) { self.rawValue = name }

    /// The name.
    public var description: String { rawValue }
}

/// A credential a provider has verified: who the user is, what must be recorded so the credential is accepted
/// once, and how the identity maps to an account when it is linked to none yet.
public struct VerifiedIdentity: Sendable {
    /// Who the user is.
    public var identity: ExternalIdentity
    /// Recorded in the sign-in's transaction so the credential is accepted once only.
    public var singleUse: SingleUseMark?
    /// The provider's own rule for an identity linked to no account, by name; nil is the contract's default
    /// (``LinkingPolicy``).
    public var linking: LinkingRule?
    /// A token the provider gave for this identity, sealed (``Identity/providerToken``): stored on the identity in
    /// the sign-in's or link's transaction, replacing any held before. Nil keeps what is held.
    public var providerToken: String?
    /// The kind of credential verified, stored on the identity it links (``Identity/kind``); set by
    /// ``IdentityProvider/verifyRecordingKind(_:hints:)``, whatever the provider put here.
    public var kind: CredentialKind?

    /// Creates a verified identity.
    public init(
        identity: ExternalIdentity, singleUse: SingleUseMark? = nil, linking: LinkingRule? = nil,
        providerToken: String? = nil, kind: CredentialKind? = nil
    ) {
        self.identity = identity
        self.singleUse = singleUse
        self.linking = linking
        self.providerToken = providerToken
        self.kind = kind
    }

    /// The identity this credential links when it is linked at `date`: its provider, subject and email, the
    /// provider's token, and the credential's kind.
    public func linkedIdentity(at date: Date) -> Identity {
        Identity(
            provider: identity.provider, subject: identity.subject, email: identity.email, linkedAt: date,
            providerToken: providerToken, kind: kind)
    }
}
