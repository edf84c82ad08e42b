public import BrokerModel
import Foundation

/// Any OpenID Connect provider, configured only (`"type": "oidc"`, any id, as many entries as wanted): ID tokens
/// verified against the JWKS that the issuer's discovery document names.
///
/// - `issuer` is the issuer as its tokens and its discovery document spell it (compared exactly);
/// - `algorithms` pins the signature algorithms (RS256 by default; RS256 and ES256 are the choices: `none` and
///   HMAC are refused when the config is read);
/// - `audiences` lists the client ids the tokens may be issued to; `nonce` as for the other providers;
/// - the email is verified only when the entry says `trustEmail: true` and the token's `email_verified` is true
///   (a boolean, or the string `"true"` some issuers send).
public struct GenericOIDCProvider: IdentityProvider, ProviderPrefetching {
    /// ID tokens.
    public let credentialKinds: Set<CredentialKind> = [.idToken]

    /// The entry's key.
    public let id: ProviderID
    private let discovery: OIDCDiscovery
    private let verifier: IDTokenVerifier
    private let trustEmail: Bool
    /// The issuer, exactly as configured.
    public var issuer: String { discovery.issuer }
    /// The client ids its tokens may be issued to.
    public let audiences: [String]

    init(id: ProviderID, discovery: OIDCDiscovery, verifier: IDTokenVerifier, audiences: [String], trustEmail: Bool) {
        self.id = id
        self.audiences = audiences
        self.discovery = discovery
        self.verifier = verifier
        self.trustEmail = trustEmail
    }

    /// Fetches the discovery document.
    public func prefetch() async { await discovery.prefetch() }

    /// Verifies an ID token; an OpenID Connect provider takes no other credential.
    public func verify(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity {
        guard case .idToken(let token, let rawNonce) = credential else {
            throw ProviderError.unsupported(credential.kind, by: id)
        }
        return VerifiedIdentity(identity: try await verifyIDToken(token, rawNonce: rawNonce))
    }

    /// Verifies an ID token and reads its identity.
    public func verifyIDToken(_ token: String, rawNonce: String?) async throws -> ExternalIdentity {
        let (subject, claims) = try await verifier.verifySubject(token, rawNonce: rawNonce)
        let vouched: Bool
        switch claims["email_verified"] {
        case .bool(let flag)?: vouched = flag
        case .string(let text)?: vouched = text == "true"
        default: vouched = false
        }
        return ExternalIdentity(
            provider: id, subject: subject, email: claims["email"]?.stringValue,
            emailVerified: trustEmail && vouched, displayName: claims["name"]?.stringValue,
            photoURL: claims["picture"]?.stringValue)
    }
}

extension GenericOIDCProvider: IdentityProviderFactory {
    /// `oidc`.
    public static let type = "oidc"

    /// Builds the provider from its config entry; fetches nothing (discovery starts with ``prefetch()``).
    public static func make(id: ProviderID, config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
        try config.allowOnly(["type", "enabled", "issuer", "audiences", "algorithms", "trustEmail", "nonce"])
        // The https rule applies; the issuer itself is kept exactly as written (a trailing `/` included), since
        // tokens and the discovery document must name it so.
        _ = try config.url("issuer", allowInsecure: context.allowInsecureURLs)
        let issuer = try config.string("issuer")
        let audiences = try config.strings("audiences", nonEmpty: true)
        let algorithms = try GenericOIDCProvider.algorithms(config)
        return GenericOIDCProvider(
            id: id, issuer: issuer, audiences: audiences, algorithms: algorithms,
            nonce: try OIDCIssuer.nonce(config, default: .optional),
            trustEmail: try config.bool("trustEmail", default: false), context: context)
    }

    /// A provider of `issuer` whose tokens carry one of `audiences`, signed with one of `algorithms`; fetches
    /// nothing (discovery happens at its first sign-in, or with ``prefetch()``).
    package init(
        id: ProviderID, issuer: String, audiences: [String], algorithms: [JWSAlgorithm], nonce: NonceRequirement,
        trustEmail: Bool, context: ProviderContext
    ) {
        let rules = IDTokenRules(
            issuers: [issuer], audiences: audiences, clockSkew: context.clockSkew, nonce: nonce,
            algorithms: algorithms)
        let discovery = OIDCDiscovery(
            issuer: issuer, provider: id.rawValue, client: context.httpClient, clock: context.clock,
            metrics: context.metrics, logger: context.logger, allowInsecureURLs: context.allowInsecureURLs)
        let keys = DiscoveredKeys(discovery: discovery, provider: id.rawValue, context: context)
        self.init(
            id: id, discovery: discovery, verifier: IDTokenVerifier(keys: keys, rules: rules, clock: context.clock),
            audiences: audiences, trustEmail: trustEmail)
    }

    /// The `algorithms` field: a non-empty list of `RS256` and `ES256`, `["RS256"]` when absent.
    static func algorithms(_ config: ConfigReader) throws -> [JWSAlgorithm] {
        let names = try config.strings("algorithms", nonEmpty: false)
        if names.isEmpty {
            if config.members["algorithms"] != nil && config.members["algorithms"] != .null {
                throw ConfigError(field: config.field("algorithms"), "must not be empty")
            }
            return [.rs256]
        }
        return try names.map { name in
            guard let algorithm = JWSAlgorithm(rawValue: name) else {
                throw ConfigError(
                    field: config.field("algorithms"),
                    "\"\(name)\" is not allowed: use RS256 or ES256 (none and HMAC are never accepted)")
            }
            return algorithm
        }
    }
}
