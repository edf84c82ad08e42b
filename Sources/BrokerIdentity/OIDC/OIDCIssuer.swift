public import BrokerModel
import Foundation

/// The OpenID Connect part shared by the ID-token providers: the config fields `audiences`, `issuers`,
/// `jwksUrl` and `nonce`, and the verifier built from them.
public struct OIDCIssuer: Sendable {
    /// The rules the tokens must meet.
    public let rules: IDTokenRules
    /// The issuer's JWKS URL.
    public let jwksURL: String
    /// The verifier.
    public let verifier: IDTokenVerifier
    /// The issuer's keys (shared with other verifiers of the same issuer, such as one with other rules).
    public let keys: JWKSCache

    /// Reads the OIDC fields of a provider entry. `defaultIssuers` apply when `issuers` is absent,
    /// `defaultAudiences` when `audiences` is (otherwise it is required), `defaultJWKSURL` when `jwksUrl` is;
    /// tokens must be signed with one of `algorithms`.
    public init(
        config: ConfigReader, provider: ProviderID, defaultIssuers: [String], defaultNonce: NonceRequirement,
        context: ProviderContext, defaultAudiences: [String] = [], defaultJWKSURL: String? = nil,
        algorithms: [JWSAlgorithm] = [.rs256]
    ) throws {
        var audiences = try config.strings("audiences", nonEmpty: defaultAudiences.isEmpty)
        if audiences.isEmpty { audiences = defaultAudiences }
        var issuers = try config.strings("issuers", nonEmpty: false)
        if issuers.isEmpty { issuers = defaultIssuers }
        if issuers.isEmpty { throw ConfigError(field: config.field("issuers"), "is required and must not be empty") }
        let nonce = try OIDCIssuer.nonce(config, default: defaultNonce)
        if let defaultJWKSURL, config.members["jwksUrl"] == nil || config.members["jwksUrl"] == .null {
            jwksURL = defaultJWKSURL
        } else {
            jwksURL = try config.url("jwksUrl", allowInsecure: context.allowInsecureURLs)
        }
        rules = IDTokenRules(
            issuers: issuers, audiences: audiences, clockSkew: context.clockSkew, nonce: nonce, algorithms: algorithms)
        keys = JWKSCache(
            url: jwksURL, provider: provider.rawValue, client: context.httpClient, clock: context.clock,
            metrics: context.metrics, logger: context.logger)
        verifier = IDTokenVerifier(keys: keys, rules: rules, clock: context.clock)
    }

    /// The `nonce` field: `"required"` or `"optional"`, `defaultNonce` when absent.
    public static func nonce(_ config: ConfigReader, default defaultNonce: NonceRequirement) throws -> NonceRequirement {
        guard let text = try config.optionalString("nonce") else { return defaultNonce }
        guard let parsed = NonceRequirement(rawValue: text) else {
            throw ConfigError(field: config.field("nonce"), "must be \"required\" or \"optional\"")
        }
        return parsed
    }

    /// Checks the `accountMapping` field (`link`, the default, unless the provider allows more) and returns it.
    @discardableResult
    public static func checkAccountMapping(_ config: ConfigReader, allowed: [String] = ["link"]) throws -> String {
        guard let mapping = try config.optionalString("accountMapping") else { return "link" }
        guard allowed.contains(mapping) else {
            let names = allowed.map { "\"\($0)\"" }.joined(separator: " or ")
            throw ConfigError(field: config.field("accountMapping"), "must be \(names)")
        }
        return mapping
    }
}
