import BrokerCrypto
public import BrokerModel
import Foundation

/// Sign in with Apple: an Apple identity token, verified against Apple's JWKS.
///
/// - The native body calls the token `identityToken`, as Apple's SDK does.
/// - The nonce is required by default: apps pass SHA-256(rawNonce) to Apple and the raw value here.
/// - Each identity token is accepted once: its mark (a hash) is recorded in the sign-in's own transaction.
/// - Apple sends the user's name to the app on the first authorization only, never in the token; the hint
///   `fullName` is used when the account is created and ignored afterwards.
/// - `email_verified` and `is_private_email` come as booleans or as the strings "true"/"false".
public struct AppleProvider: IdentityProvider {
    /// ID tokens.
    public let credentialKinds: Set<CredentialKind> = [.idToken]

    /// `apple`.
    public let id: ProviderID
    private let issuer: OIDCIssuer
    private let clockSkew: TimeInterval
    /// The code exchange and revocation (`clientSecret` configured), with the verifier of the exchange's ID
    /// token and the key sealing the refresh token; nil without `clientSecret`.
    let exchange: AppleCodeExchange?
    /// Verifies Apple's server-to-server notifications (``AppleNotifications``).
    let notifications: AppleNotifications

    init(
        id: ProviderID, issuer: OIDCIssuer, clockSkew: TimeInterval, exchange: AppleCodeExchange? = nil,
        clock: any Clock = SystemClock()
    ) {
        self.id = id
        notifications = AppleNotifications(provider: id, issuer: issuer, clock: clock, clockSkew: clockSkew)
        self.issuer = issuer
        self.clockSkew = clockSkew
        self.exchange = exchange
    }

    /// `identityToken`.
    public var idTokenField: String { "identityToken" }

    /// `apple.com`.
    public var domainID: String? { "apple.com" }

    /// Verifies an identity token and returns it with its single-use mark.
    public func verify(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity {
        guard case .idToken(let token, let rawNonce) = credential else {
            throw ProviderError.unsupported(credential.kind, by: id)
        }
        let (subject, claims) = try await issuer.verifier.verifySubject(token, rawNonce: rawNonce)
        var identity = identity(subject, claims)
        if identity.displayName == nil { identity.displayName = hints.fullName }
        let expiry = Date(timeIntervalSince1970: claims["exp"]?.doubleValue ?? 0) + clockSkew
        let mark = SingleUseMark(key: "apple:" + Hex.encode(Digest.sha256(token)), expiresAt: expiry)
        // With a client secret, an authorization code is exchanged for Apple's refresh token before anything is
        // stored: a refused code or an Apple outage fails the sign-in. Without one, a code is ignored.
        var sealed: String?
        if let code = hints.authorizationCode, let exchange {
            sealed = try await exchange.refreshToken(code: code, subject: identity.subject)
        }
        return VerifiedIdentity(identity: identity, singleUse: mark, providerToken: sealed)
    }

    /// Verifies an Apple identity token and reads its identity (without recording its use).
    public func verifyIDToken(_ token: String, rawNonce: String?) async throws -> ExternalIdentity {
        let (subject, claims) = try await issuer.verifier.verifySubject(token, rawNonce: rawNonce)
        return identity(subject, claims)
    }

    private func identity(_ subject: String, _ claims: [String: JSONValue]) -> ExternalIdentity {
        ExternalIdentity(
            provider: id, subject: subject, email: claims["email"]?.stringValue,
            emailVerified: AppleProvider.flag(claims["email_verified"]))
    }

    /// Apple's boolean claims: `true` or `"true"`.
    static func flag(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag)?: return flag
        case .string(let text)?: return text.lowercased() == "true"
        default: return false
        }
    }
}

extension AppleProvider: IdentityProviderFactory {
    /// `apple`.
    public static let type = "apple"

    /// Builds the provider from its config entry.
    public static func make(id: ProviderID, config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
        try config.allowOnly([
            "type", "enabled", "audiences", "issuers", "jwksUrl", "nonce", "accountMapping", "clientSecret", "apiBaseUrl",
        ])
        try OIDCIssuer.checkAccountMapping(config)
        let issuer = try OIDCIssuer(
            config: config, provider: id, defaultIssuers: ["https://appleid.apple.com", "https://account.apple.com"],
            defaultNonce: .required, context: context)
        let baseURL =
            config.members["apiBaseUrl"] == nil
            ? "https://appleid.apple.com" : try config.url("apiBaseUrl", allowInsecure: context.allowInsecureURLs)
        let exchange = try config.child("clientSecret").map { section in
            let secret = try AppleClientSecret.make(section, clock: context.clock)
            guard let cipher = context.cipher else {
                throw ConfigError(
                    field: section.path,
                    "needs BROKER_ENCRYPTION_KEY or BROKER_ENCRYPTION_KEY_FILE (32 bytes, base64): Apple's refresh "
                        + "tokens are kept encrypted")
            }
            return AppleCodeExchange(
                provider: id, api: AppleTokenAPI(baseURL: baseURL, client: context.httpClient, secret: secret, metrics: context.metrics),
                verifier: IDTokenVerifier(
                    keys: issuer.keys,
                    rules: IDTokenRules(
                        issuers: issuer.rules.issuers, audiences: issuer.rules.audiences + [secret.clientID],
                        clockSkew: context.clockSkew, nonce: .optional),
                    clock: context.clock),
                cipher: cipher)
        }
        return AppleProvider(
            id: id, issuer: issuer, clockSkew: context.clockSkew, exchange: exchange, clock: context.clock)
    }
}
