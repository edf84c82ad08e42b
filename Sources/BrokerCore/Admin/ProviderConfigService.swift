package import BrokerIdentity
package import BrokerModel
package import BrokerStorage
import Foundation

/// An OpenID Connect provider as the admin API and other surfaces show it: one managed at run time (its client
/// secret opened) or one of the config file (read-only).
public struct OIDCProviderConfig: Sendable, Equatable {
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
    /// The client secret, in clear; nil when none was given.
    public var clientSecret: String?
    /// Whether the provider answers with an ID token.
    public var idTokenResponse: Bool
    /// Whether the provider answers with a code (needs a client secret).
    public var codeResponse: Bool
    /// Whether it is one of the config file's (then it cannot be changed at run time).
    public var readOnly: Bool

    /// Creates a config.
    public init(
        id: String, clientID: String, issuer: String, displayName: String? = nil, enabled: Bool = true,
        clientSecret: String? = nil, idTokenResponse: Bool = true, codeResponse: Bool = false, readOnly: Bool = false
    ) {
        self.id = id
        self.clientID = clientID
        self.issuer = issuer
        self.displayName = displayName
        self.enabled = enabled
        self.clientSecret = clientSecret
        self.idTokenResponse = idTokenResponse
        self.codeResponse = codeResponse
        self.readOnly = readOnly
    }
}

/// The OpenID Connect providers managed at run time (contract section 11; the admin API's `/admin/v1/providers`, and
/// any other surface's): checked, stored through ``ProviderConfigStore`` with the client secret sealed with
/// `BROKER_ENCRYPTION_KEY` (refused without it), each change audited once (`provider_config`, the outcome `created`,
/// `updated` or `deleted`, the provider as `oidc.<id>`, the actor admin). The config file's OIDC providers
/// (`"type": "oidc"`) are listed too, read-only; an id the config file uses (even for a disabled entry) cannot be
/// created. Creating one fetches nothing.
public struct ProviderConfigService: Sendable {
    let store: any BrokerStore
    let cipher: OutboxCipher?
    let clock: any Clock
    let auditor: Auditor
    /// The config file's OIDC providers, by id.
    let configured: [OIDCProviderConfig]
    /// Every id the config file names.
    let configuredIDs: Set<String>

    /// Creates the service; `providers` and `config` give the config file's providers.
    package init(
        store: any BrokerStore, cipher: OutboxCipher?, clock: any Clock, auditor: Auditor, providers: ProviderRegistry,
        config: BrokerConfig
    ) {
        self.store = store
        self.cipher = cipher
        self.clock = clock
        self.auditor = auditor
        configured = providers.all.compactMap { provider in
            guard let oidc = provider as? GenericOIDCProvider else { return nil }
            return OIDCProviderConfig(
                id: oidc.id.rawValue, clientID: oidc.audiences.first ?? "", issuer: oidc.issuer, readOnly: true)
        }
        configuredIDs = Set(config.providers.keys)
    }

    /// Checks and stores a new provider; ``ProviderConfigError`` when refused (nothing stored).
    public func create(_ config: OIDCProviderConfig, requestID: String) async throws -> OIDCProviderConfig {
        try Self.check(id: config.id)
        guard !configuredIDs.contains(config.id) else {
            throw ProviderConfigError(.configurationExists, "oidc.\(config.id) is a provider of the config file")
        }
        try Self.check(config)
        let now = clock.now
        do {
            try await store.createProviderConfig(try sealed(config, createdAt: now, updatedAt: now))
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw ProviderConfigError(.configurationExists)
        }
        await record(config.id, "created", requestID: requestID)
        return config
    }

    /// The provider `id`: a stored one (its secret opened) or the config file's; nil when neither.
    public func config(id: String) async throws -> OIDCProviderConfig? {
        if let file = configured.first(where: { $0.id == id }) { return file }
        return try await store.providerConfig(id: id).map(opened)
    }

    /// Every provider, the config file's and the stored ones, by id (as bytes).
    public func configs() async throws -> [OIDCProviderConfig] {
        let stored = try await store.providerConfigs().filter { !configuredIDs.contains($0.id) }.map(opened)
        return (configured + stored).sorted { Array($0.id.utf8).lexicographicallyPrecedes(Array($1.id.utf8)) }
    }

    /// Changes the stored provider `id` with `change` (its id stays); refused for the config file's
    /// (``ProviderConfigError/Code/readOnly``) and for none (``ProviderConfigError/Code/configurationNotFound``).
    public func update(
        id: String, requestID: String, _ change: (inout OIDCProviderConfig) throws -> Void
    ) async throws -> OIDCProviderConfig {
        try refuseConfigured(id)
        guard let row = try await store.providerConfig(id: id) else {
            throw ProviderConfigError(.configurationNotFound)
        }
        guard row.sealedClientSecret == nil || cipher != nil else {
            throw ProviderConfigError(.secretNeedsKey, "its clientSecret is sealed with BROKER_ENCRYPTION_KEY")
        }
        var config = try opened(row)
        try change(&config)
        config.id = id
        try Self.check(config)
        do {
            try await store.updateProviderConfig(try sealed(config, createdAt: row.createdAt, updatedAt: clock.now))
        } catch let error as AccountStoreError where error.code == .notFound {
            throw ProviderConfigError(.configurationNotFound)
        }
        await record(id, "updated", requestID: requestID)
        return config
    }

    /// Deletes the stored provider `id`: it signs nobody in from then on, on every instance; its users keep their
    /// accounts (and other ways to sign in).
    public func delete(id: String, requestID: String) async throws {
        try refuseConfigured(id)
        guard try await store.deleteProviderConfig(id: id) else { throw ProviderConfigError(.configurationNotFound) }
        await record(id, "deleted", requestID: requestID)
    }

    private func refuseConfigured(_ id: String) throws {
        guard !configuredIDs.contains(id) else {
            throw ProviderConfigError(.readOnly, "oidc.\(id) is a provider of the config file: change it there")
        }
    }

    /// An id a stored provider may have: a provider id not reserved by the broker.
    package static func check(id: String) throws {
        guard ProviderRegistry.isValidID(id), !ProviderRegistry.reservedIDs.contains(id) else {
            throw ProviderConfigError(.invalidProviderID, "an OIDC provider id is oidc.<a-z, 0-9 and ->")
        }
    }

    /// A client id; an `https` issuer (`http` only on a loopback host), kept exactly as written; an ID token or a
    /// code for an answer, a code only with a client secret.
    package static func check(_ config: OIDCProviderConfig) throws {
        guard !config.clientID.isEmpty, config.clientID.utf8.count <= 1024 else {
            throw ProviderConfigError(.invalidConfig, "clientId is required")
        }
        guard config.issuer.utf8.count <= 2048, let url = URL(string: config.issuer), let host = url.host,
            !host.isEmpty,
            url.scheme == "https" || (url.scheme == "http" && ["localhost", "127.0.0.1", "::1"].contains(host))
        else { throw ProviderConfigError(.invalidConfig, "issuer must be an https URL") }
        guard config.idTokenResponse || config.codeResponse else {
            throw ProviderConfigError(.invalidConfig, "responseType needs idToken or code")
        }
        guard !config.codeResponse || config.clientSecret != nil else {
            throw ProviderConfigError(.invalidConfig, "responseType code needs a clientSecret")
        }
    }

    private func sealed(_ config: OIDCProviderConfig, createdAt: Date, updatedAt: Date) throws -> StoredOIDCProvider {
        var secret: String?
        if let clear = config.clientSecret {
            guard let cipher else {
                throw ProviderConfigError(.secretNeedsKey, "a clientSecret needs BROKER_ENCRYPTION_KEY")
            }
            secret = try cipher.seal(clear, context: Self.secretContext(config.id))
        }
        return StoredOIDCProvider(
            id: config.id, clientID: config.clientID, issuer: config.issuer, displayName: config.displayName,
            enabled: config.enabled, sealedClientSecret: secret, idTokenResponse: config.idTokenResponse,
            codeResponse: config.codeResponse, createdAt: createdAt, updatedAt: updatedAt)
    }

    private func opened(_ row: StoredOIDCProvider) throws -> OIDCProviderConfig {
        var secret: String?
        // Without the key the secret cannot be shown (it stays sealed in the store).
        if let sealed = row.sealedClientSecret, let cipher {
            secret = try cipher.open(sealed, context: Self.secretContext(row.id))
        }
        return OIDCProviderConfig(
            id: row.id, clientID: row.clientID, issuer: row.issuer, displayName: row.displayName,
            enabled: row.enabled, clientSecret: secret, idTokenResponse: row.idTokenResponse,
            codeResponse: row.codeResponse)
    }

    private static func secretContext(_ id: String) -> String { "oidc-client-secret:\(id)" }

    private func record(_ id: String, _ outcome: String, requestID: String) async {
        await auditor.record(
            .providerConfig, uid: nil, provider: "oidc." + id, actor: .admin, outcome: outcome, requestID: requestID)
    }
}
