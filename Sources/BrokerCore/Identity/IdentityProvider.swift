import Foundation

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

/// How a provider's identities map to accounts.
public enum AccountMapping: String, Sendable {
    /// (provider, subject) is linked to one account: the default.
    case link
    /// Kakao's email + user-id-as-password workaround of apps built on Firebase email/password auth.
    case emailPassword = "email-password"
}

/// A verified sign-in, handed from a provider to the account layer.
public struct ProviderSignIn: Sendable {
    /// Who the user is.
    public var identity: ExternalIdentity
    /// Recorded in the sign-in's transaction so the credential is accepted once only (Apple).
    public var singleUse: SingleUseMark?
    /// How the identity maps to an account.
    public var mapping: AccountMapping
    /// The session to store with the sign-in, in the same transaction (set by the HTTP layer).
    public var session: SessionGrant?
    /// The request's id (set by the HTTP layer): the sign-in's audit events, stamped with it, are recorded in
    /// its transaction. Without one, none are.
    public var requestID: String?

    /// Creates a sign-in.
    public init(identity: ExternalIdentity, singleUse: SingleUseMark? = nil, mapping: AccountMapping = .link) {
        self.identity = identity
        self.singleUse = singleUse
        self.mapping = mapping
    }
}

/// A sign-in provider: takes its own sign-in body (section 2 of the contract) and returns a verified sign-in.
public protocol IdentityProvider: Sendable {
    /// The provider's name in URLs and config.
    var id: ProviderID { get }
    /// Verifies the credential in `body`, or throws ``ProviderError`` / ``TokenError``.
    func signIn(body: [String: JSONValue]) async throws -> ProviderSignIn
}

/// A provider that verifies OpenID Connect ID tokens (Google, Apple, Kakao OIDC).
public protocol IDTokenVerifying: Sendable {
    /// Verifies `token` (and the nonce) and returns the identity it names.
    func verifyIDToken(_ token: String, rawNonce: String?) async throws -> ExternalIdentity
}

/// A provider that verifies OAuth access tokens by calling its API (Kakao REST).
public protocol AccessTokenVerifying: Sendable {
    /// Checks `token` with the provider and returns the identity it belongs to.
    func verifyAccessToken(_ token: String) async throws -> ExternalIdentity
}

/// What every provider factory gets besides its config entry.
public struct ProviderContext: Sendable {
    /// Outbound HTTP.
    public var httpClient: any HTTPClient
    /// The clock.
    public var clock: any Clock
    /// Metrics.
    public var metrics: Metrics
    /// The logger.
    public var logger: Logger
    /// Tolerance for token times, from config.
    public var clockSkew: TimeInterval
    /// Whether `http://` provider URLs are allowed (stubs).
    public var allowInsecureURLs: Bool

    /// Creates a context.
    public init(
        httpClient: any HTTPClient, clock: any Clock, metrics: Metrics, logger: Logger, clockSkew: TimeInterval,
        allowInsecureURLs: Bool
    ) {
        self.httpClient = httpClient
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.clockSkew = clockSkew
        self.allowInsecureURLs = allowInsecureURLs
    }
}

/// Builds one provider from its `providers.json` entry, validating the entry once, at start.
public protocol IdentityProviderFactory {
    /// The provider's name, also its key under `providers`.
    static var id: ProviderID { get }
    /// Builds the provider; throws ``ConfigError`` naming the bad field.
    static func make(config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider
}

/// Reads a required string field of a sign-in body.
func requiredString(_ body: [String: JSONValue], _ field: String) throws -> String {
    guard let value = body[field] else { throw ProviderError(.invalidRequest, "\(field) is required") }
    guard let text = value.stringValue, !text.isEmpty else {
        throw ProviderError(.invalidRequest, "\(field) must be a non-empty string")
    }
    return text
}

/// Reads an optional string field of a sign-in body (absent or null is nil; another type is refused).
func optionalString(_ body: [String: JSONValue], _ field: String) throws -> String? {
    switch body[field] {
    case nil, .null?: return nil
    case .string(let text)?: return text
    default: throw ProviderError(.invalidRequest, "\(field) must be a string")
    }
}
