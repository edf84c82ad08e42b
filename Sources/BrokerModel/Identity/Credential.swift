/// What an app presents to sign in with a provider, whatever surface carried it.
public enum Credential: Sendable, Equatable {
    /// An OpenID Connect ID token, with the raw nonce whose SHA-256 the token's `nonce` claim must be.
    case idToken(String, rawNonce: String?)
    /// An OAuth access token, checked with the provider's API.
    case accessToken(String)

    /// The credential's kind.
    public var kind: CredentialKind {
        switch self {
        case .idToken: .idToken
        case .accessToken: .accessToken
        }
    }
}

/// The kinds of ``Credential``.
public enum CredentialKind: String, Sendable, Equatable {
    /// An ID token.
    case idToken
    /// An access token.
    case accessToken
}

/// What may come with a credential besides it: facts a provider does not put in its tokens.
public struct CredentialHints: Sendable, Equatable {
    /// The user's name as the app received it (some providers send it to the app once, never in a token),
    /// used when the account is created.
    public var fullName: String?
    /// An authorization code the provider can exchange for its own tokens.
    public var authorizationCode: String?

    /// Creates hints.
    public init(fullName: String? = nil, authorizationCode: String? = nil) {
        self.fullName = fullName
        self.authorizationCode = authorizationCode
    }

    /// No hints.
    public static let none = CredentialHints()
}
