import Foundation

extension SessionSurface {
    /// The Firebase-compatible listener (`firebaseCompat`).
    public static let firebase = SessionSurface(rawValue: "firebase")
}

/// The sessions of the Firebase-compatible listener: ID tokens in Firebase's shape (contract section 11), signed
/// by the broker's keys: `iss` `https://securetoken.…/{projectId}`, `aud` the project, `sub` = `user_id` = uid,
/// `auth_time`, `iat`, `exp`, `email`, `email_verified`, `name`, `picture`, `firebase: {identities,
/// sign_in_provider}`, the custom claims at the top level, and `sid` (the session, for exact revocation). A
/// session's own claims (a custom token's `claims`) go over the account's custom claims.
///
/// Providers are named by their one Firebase id (``ProviderRegistry/firebaseID(of:)``), in `identities` as in
/// `sign_in_provider`.
public struct FirebaseSessionFormat: SessionFormat {
    /// The enabled providers, whose Firebase ids name identities and sign-ins.
    public let providers: ProviderRegistry

    /// Creates the format.
    public init(providers: ProviderRegistry) { self.providers = providers }

    /// ``SessionSurface/firebase``.
    public var surface: SessionSurface { .firebase }

    /// The `iss` of the Firebase-shaped ID tokens of project `projectID`.
    public static func issuer(projectID: String) -> String {
        FirebaseEndpoints.secureTokenIssuerPrefix + projectID
    }

    /// A provider's Firebase id for an enabled provider's label (`<id>` → `oidc.<id>`); `password`, `custom`
    /// and Firebase ids unchanged.
    public func signInProvider(_ label: String) -> String { providers.firebaseID(of: ProviderID(label)) }

    /// Firebase's claims.
    public func claims(of content: SessionTokenContent, settings: SessionSettings) -> [String: JSONValue] {
        let account = content.account
        let issuedAt = Int64(content.now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [:]
        if let name = account.displayName { claims["name"] = .string(name) }
        if let photo = account.photoURL { claims["picture"] = .string(photo) }
        claims.merge(SessionService.customClaims(of: account) ?? [:]) { _, custom in custom }
        if let sessionClaims = content.sessionClaims,
            let object = JSONValue.parse(Array(sessionClaims.utf8))?.objectValue
        {
            claims.merge(object) { _, session in session }
        }
        var identities: [String: [JSONValue]] = [:]
        if let email = account.email { identities["email"] = [.string(email)] }
        for identity in account.identities {
            identities[providers.firebaseID(of: identity.provider), default: []].append(.string(identity.subject))
        }
        let reserved: [String: JSONValue] = [
            "iss": .string(Self.issuer(projectID: settings.projectID)),
            "aud": .string(settings.projectID), "sub": .string(account.id.rawValue),
            "user_id": .string(account.id.rawValue), "iat": .int(issuedAt),
            "exp": .int(issuedAt + Int64(settings.idTokenTTL)),
            "auth_time": .int(Int64(content.authTime.timeIntervalSince1970)),
            "email_verified": .bool(account.emailVerified), "sid": .string(content.sessionID),
            "firebase": .object([
                "identities": .object(identities.mapValues { .array($0) }),
                "sign_in_provider": .string(content.provider),
            ]),
        ]
        claims.merge(reserved) { _, reserved in reserved }
        if let email = account.email { claims["email"] = .string(email) } else { claims["email"] = nil }
        return claims
    }
}

extension FirebaseCustomTokenMinter: CustomTokenMinting {}
