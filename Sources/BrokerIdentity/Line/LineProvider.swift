public import BrokerModel
import Foundation

/// Sign in with LINE, by either of LINE Login's two credentials:
///
/// - an ID token (`{"idToken", "rawNonce"?}`): verified locally, ES256 pinned (LINE signs its native ID tokens
///   with ES256), against LINE's JWKS, issuer `https://access.line.me`, audience the channel id;
/// - an access token (`{"accessToken"}`): LINE's verify endpoint must name our channel (`client_id`) and a
///   positive `expires_in`; then `/v2/profile` names the user.
///
/// Both give LINE's user id (`sub` of the ID token, `userId` of the profile), so they reach the same account.
/// LINE vouches for no email: an ID token's `email` is kept but never verified, so it never links.
public struct LineProvider: IdentityProvider {
    /// ID tokens and access tokens.
    public let credentialKinds: Set<CredentialKind> = [.idToken, .accessToken]

    /// `line`.
    public let id: ProviderID
    private let channelID: String
    private let api: LineAPI
    private let issuer: OIDCIssuer

    init(id: ProviderID, channelID: String, api: LineAPI, issuer: OIDCIssuer) {
        self.id = id
        self.channelID = channelID
        self.api = api
        self.issuer = issuer
    }

    /// Verifies an ID token (locally) or an access token (with LINE's API).
    public func verify(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity {
        switch credential {
        case .accessToken(let token): VerifiedIdentity(identity: try await verifyAccessToken(token))
        case .idToken(let token, let rawNonce): VerifiedIdentity(identity: try await verifyIDToken(token, rawNonce: rawNonce))
        }
    }

    /// Verifies a LINE ID token and reads its identity.
    public func verifyIDToken(_ token: String, rawNonce: String?) async throws -> ExternalIdentity {
        let claims = try await issuer.verifier.verify(token, rawNonce: rawNonce)
        guard let subject = claims["sub"]?.stringValue, LineAPI.isUserID(subject) else {
            throw TokenError(.missingSubject, "line sub is not a user id")
        }
        return ExternalIdentity(
            provider: id, subject: subject, email: claims["email"]?.stringValue, emailVerified: false,
            displayName: claims["name"]?.stringValue, photoURL: claims["picture"]?.stringValue)
    }

    /// Checks an access token with LINE and reads the user's profile.
    public func verifyAccessToken(_ token: String) async throws -> ExternalIdentity {
        guard ProviderCall.isBearerToken(token) else { throw ProviderError(.invalidToken, "not a bearer token") }
        let info = try await api.verify(token)
        // Another channel's token names another app's user: the same refusal as an ID token for another audience.
        guard info.clientID == channelID else { throw TokenError(.invalidAudience, "line token issued to another channel") }
        guard info.expiresIn > 0 else { throw TokenError(.expired, "line token has no time left") }
        let profile = try await api.profile(token)
        return ExternalIdentity(
            provider: id, subject: profile.userID, displayName: profile.displayName, photoURL: profile.pictureURL)
    }
}

extension LineProvider: IdentityProviderFactory {
    /// `line`.
    public static let type = "line"

    /// LINE's ID-token issuer.
    public static let issuer = "https://access.line.me"

    /// Builds the provider from its config entry.
    public static func make(id: ProviderID, config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
        try config.allowOnly([
            "type", "enabled", "channelId", "apiBaseUrl", "jwksUrl", "issuers", "audiences", "nonce", "accountMapping",
        ])
        try OIDCIssuer.checkAccountMapping(config)
        let channelID = try config.string("channelId")
        guard (1...32).contains(channelID.utf8.count), channelID.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ConfigError(field: config.field("channelId"), "must be the LINE Login channel id (digits)")
        }
        let baseURL =
            config.members["apiBaseUrl"].map { $0 == .null } ?? true
            ? "https://api.line.me" : try config.url("apiBaseUrl", allowInsecure: context.allowInsecureURLs)
        let issuer = try OIDCIssuer(
            config: config, provider: id, defaultIssuers: [LineProvider.issuer], defaultNonce: .optional,
            context: context, defaultAudiences: [channelID], defaultJWKSURL: "https://api.line.me/oauth2/v2.1/certs",
            algorithms: [.es256])
        return LineProvider(
            id: id, channelID: channelID,
            api: LineAPI(
                baseURL: baseURL,
                call: ProviderCall(client: context.httpClient, metrics: context.metrics, provider: id.rawValue)),
            issuer: issuer)
    }
}
