public import Foundation

/// An OpenID Connect provider managed at run time (contract section 11), as the store keeps it. Its client secret
/// is kept sealed: the store never sees it in clear.
public struct StoredOIDCProvider: Sendable, Equatable {
    /// The provider's id (`/v1/signin/<id>` natively, `oidc.<id>` in audit events).
    public var id: String
    /// The audience its ID tokens must carry.
    public var clientID: String
    /// The issuer, exactly as its tokens and discovery document spell it.
    public var issuer: String
    /// A name for people.
    public var displayName: String?
    /// Whether it signs anyone in.
    public var enabled: Bool
    /// The client secret, sealed with `BROKER_ENCRYPTION_KEY`; nil when none was given.
    public var sealedClientSecret: String?
    /// Whether the provider answers with an ID token.
    public var idTokenResponse: Bool
    /// Whether the provider answers with a code.
    public var codeResponse: Bool
    /// When it was created.
    public var createdAt: Date
    /// When it was last changed.
    public var updatedAt: Date

    /// Creates a stored provider.
    public init(
        id: String, clientID: String, issuer: String, displayName: String? = nil, enabled: Bool = true,
        sealedClientSecret: String? = nil, idTokenResponse: Bool = true, codeResponse: Bool = false, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.clientID = clientID
        self.issuer = issuer
        self.displayName = displayName
        self.enabled = enabled
        self.sealedClientSecret = sealedClientSecret
        self.idTokenResponse = idTokenResponse
        self.codeResponse = codeResponse
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The OpenID Connect providers managed at run time, shared by every instance through the database (schema
/// version 18). Times are kept to the millisecond.
public protocol ProviderConfigStore: Sendable {
    /// Stores a new provider; ``AccountStoreError`` `alreadyExists` when its id is taken.
    func createProviderConfig(_ provider: StoredOIDCProvider) async throws
    /// The provider with this id, if stored.
    func providerConfig(id: String) async throws -> StoredOIDCProvider?
    /// Every stored provider, by id.
    func providerConfigs() async throws -> [StoredOIDCProvider]
    /// Replaces the stored provider of the same id (its `createdAt` is kept); ``AccountStoreError`` `notFound`
    /// when there is none.
    func updateProviderConfig(_ provider: StoredOIDCProvider) async throws
    /// Deletes the provider with this id; true when one was stored.
    @discardableResult
    func deleteProviderConfig(id: String) async throws -> Bool
}
