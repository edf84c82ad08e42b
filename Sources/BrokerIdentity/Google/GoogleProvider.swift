public import BrokerModel
import Foundation

/// Sign in with Google: a Google ID token, verified against Google's JWKS.
///
/// Google's ID tokens name the user by `sub`; `email` and `email_verified` (a boolean) come with the `email`
/// scope; `name` and `picture` with `profile`.
public struct GoogleProvider: IdentityProvider {
    /// ID tokens.
    public let credentialKinds: Set<CredentialKind> = [.idToken]

    /// `google`.
    public let id: ProviderID
    private let issuer: OIDCIssuer

    init(id: ProviderID, issuer: OIDCIssuer) {
        self.id = id
        self.issuer = issuer
    }

    /// Verifies an ID token; Google takes no other credential.
    public func verify(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity {
        guard case .idToken(let token, let rawNonce) = credential else {
            throw ProviderError.unsupported(credential.kind, by: id)
        }
        return VerifiedIdentity(identity: try await verifyIDToken(token, rawNonce: rawNonce))
    }

    /// `google.com`.
    public var domainID: String? { "google.com" }

    /// Verifies a Google ID token and reads its identity.
    public func verifyIDToken(_ token: String, rawNonce: String?) async throws -> ExternalIdentity {
        let (subject, claims) = try await issuer.verifier.verifySubject(token, rawNonce: rawNonce)
        return ExternalIdentity(
            provider: id, subject: subject, email: claims["email"]?.stringValue,
            emailVerified: claims["email_verified"]?.boolValue ?? false, displayName: claims["name"]?.stringValue,
            photoURL: claims["picture"]?.stringValue)
    }
}

extension GoogleProvider: IdentityProviderFactory {
    /// `google`.
    public static let type = "google"

    /// Builds the provider from its config entry.
    public static func make(id: ProviderID, config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
        try config.allowOnly(["type", "enabled", "audiences", "issuers", "jwksUrl", "nonce", "accountMapping"])
        try OIDCIssuer.checkAccountMapping(config)
        let issuer = try OIDCIssuer(
            config: config, provider: id, defaultIssuers: ["https://accounts.google.com", "accounts.google.com"],
            defaultNonce: .optional, context: context)
        return GoogleProvider(id: id, issuer: issuer)
    }
}
