import Foundation

/// Sign in with Google: a Google ID token, verified against Google's JWKS.
///
/// Body: `{"idToken": "...", "rawNonce": "optional"}`. Google's ID tokens name the user by `sub`; `email` and
/// `email_verified` (a boolean) come with the `email` scope; `name` and `picture` with `profile`.
public struct GoogleProvider: IdentityProvider, IDTokenVerifying {
    /// `google`.
    public var id: ProviderID { Self.id }
    private let issuer: OIDCIssuer

    init(issuer: OIDCIssuer) { self.issuer = issuer }

    /// Verifies the body's ID token.
    public func signIn(body: [String: JSONValue]) async throws -> ProviderSignIn {
        let token = try requiredString(body, "idToken")
        let rawNonce = try optionalString(body, "rawNonce")
        return ProviderSignIn(identity: try await verifyIDToken(token, rawNonce: rawNonce))
    }

    /// Verifies a Google ID token and reads its identity.
    public func verifyIDToken(_ token: String, rawNonce: String?) async throws -> ExternalIdentity {
        let claims = try await issuer.verifier.verify(token, rawNonce: rawNonce)
        return ExternalIdentity(
            provider: id, subject: claims["sub"]?.stringValue ?? "", email: claims["email"]?.stringValue,
            emailVerified: claims["email_verified"]?.boolValue ?? false, displayName: claims["name"]?.stringValue,
            photoURL: claims["picture"]?.stringValue)
    }
}

extension GoogleProvider: IdentityProviderFactory {
    /// `google`.
    public static let id = ProviderID("google")

    /// Builds the provider from its `providers.google` entry.
    public static func make(config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
        try config.allowOnly(["enabled", "audiences", "issuers", "jwksUrl", "nonce", "accountMapping"])
        _ = try OIDCIssuer.accountMapping(config)
        let issuer = try OIDCIssuer(
            config: config, provider: id, defaultIssuers: ["https://accounts.google.com", "accounts.google.com"],
            defaultNonce: .optional, context: context)
        return GoogleProvider(issuer: issuer)
    }
}
