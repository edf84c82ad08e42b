public import BrokerCore
public import BrokerIdentity
public import BrokerModel
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
/// Identities are named by their Firebase id (``ProviderRegistry/firebaseID(of:)-swift.method``, from the kind of
/// credential that linked each), in `identities` as in `sign_in_provider`: a session names the identity its
/// sign-in reached, so one identity has one name whichever kind of credential signed in.
public struct FirebaseSessionFormat: SessionFormat {
    /// The enabled providers, whose Firebase ids name identities and sign-ins.
    public let providers: ProviderRegistry

    /// Creates the format.
    public init(providers: ProviderRegistry) { self.providers = providers }

    /// ``SessionSurface/firebase``.
    public var surface: SessionSurface { .firebase }

    /// Firebase's refresh tokens do not rotate: a refresh answers the token it was sent, valid until the session
    /// is revoked, and its clients rely on that (some keep their first refresh token).
    public var rotatesRefreshTokens: Bool { false }

    /// The `iss` of the Firebase-shaped ID tokens of project `projectID`.
    public static func issuer(projectID: String) -> String {
        FirebaseEndpoints.secureTokenIssuerPrefix + projectID
    }

    /// An enabled provider's label by the rule for an identity of unknown kind (each mint names the account's
    /// identity instead: ``signInProvider(_:of:)``); `password`, `custom` and Firebase ids unchanged.
    public func signInProvider(_ label: String) -> String { providers.firebaseID(of: ProviderID(label), kind: nil) }

    /// The Firebase id of `account`'s identity of the provider the stored name names (by its own id or a
    /// Firebase id), by the kind that linked it; by the rule for an unknown kind when the account no longer has
    /// one; an identity of a provider managed at run time by its kind; `password`, `custom` and other names
    /// unchanged.
    public func signInProvider(_ stored: String, of account: Account) -> String {
        guard let provider = providers.provider(sessionName: stored) else {
            return account.identity(ProviderID(stored)).map { providers.firebaseID(of: $0) } ?? stored
        }
        return ProviderRegistry.firebaseID(of: provider, kind: account.identity(provider.id)?.kind)
    }

    /// `mfa` and, for an authenticator, `mfa_factor_id`: the factor's id, which Firebase's ID tokens name.
    public func secondFactorClaims(_ type: String, factorID: String?) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["mfa": .string(type)]
        if let factorID { claims["mfa_factor_id"] = .string(factorID) }
        return claims
    }

    /// A completed second factor's session claims (`mfa`, `mfa_factor_id`), taken out of `claims` and named as
    /// Firebase names them under `firebase`: `sign_in_second_factor`, `second_factor_identifier`.
    static func secondFactor(_ claims: inout [String: JSONValue]) -> [String: JSONValue] {
        guard let factor = claims.removeValue(forKey: "mfa") else { return [:] }
        var named: [String: JSONValue] = ["sign_in_second_factor": factor]
        if let id = claims.removeValue(forKey: "mfa_factor_id") { named["second_factor_identifier"] = id }
        return named
    }

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
            identities[providers.firebaseID(of: identity), default: []].append(.string(identity.subject))
        }
        let reserved: [String: JSONValue] = [
            "iss": .string(Self.issuer(projectID: settings.projectID)),
            "aud": .string(settings.projectID), "sub": .string(account.id.rawValue),
            "user_id": .string(account.id.rawValue), "iat": .int(issuedAt),
            "exp": .int(issuedAt + Int64(settings.idTokenTTL)),
            "auth_time": .int(Int64(content.authTime.timeIntervalSince1970)),
            "email_verified": .bool(account.emailVerified), "sid": .string(content.sessionID),
            "firebase": .object(
                [
                    "identities": .object(identities.mapValues { .array($0) }),
                    "sign_in_provider": .string(content.provider),
                ].merging(Self.secondFactor(&claims)) { own, _ in own }),
        ]
        claims.merge(reserved) { _, reserved in reserved }
        if let email = account.email { claims["email"] = .string(email) } else { claims["email"] = nil }
        return claims
    }
}

extension FirebaseCustomTokenMinter: CustomTokenMinting {}
