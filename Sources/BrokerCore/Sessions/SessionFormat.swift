public import BrokerModel
public import Foundation

/// What an ID token of a session says: the account, how and when it signed in, the session.
public struct SessionTokenContent: Sendable {
    /// The account (`sub`).
    public var account: Account
    /// The session's sign-in method, as its format named it (``SessionFormat/signInProvider(_:)``).
    public var provider: String
    /// The session (`sid`).
    public var sessionID: String
    /// Claims the session's tokens carry besides the account's (JSON object text), if any.
    public var sessionClaims: String?
    /// The session's sign-in time (`auth_time`).
    public var authTime: Date
    /// When the token is minted (`iat`).
    public var now: Date
}

/// The shape of one listener's sessions: the claims of their ID tokens, and how they name the sign-in method. The
/// session row stores the listener's name (``SessionSurface``); ``SessionService`` mints with the format of that
/// name, so a session's tokens keep their shape through every refresh.
public protocol SessionFormat: Sendable {
    /// The listener whose sessions this format shapes.
    var surface: SessionSurface { get }
    /// The sign-in method a new session of this format stores, from a method's label (a provider's id,
    /// `password`, `custom`); a name the format gave already comes back unchanged.
    func signInProvider(_ label: String) -> String
    /// The sign-in method an ID token of a session of `account` names, from the one the session stored (at each
    /// mint, so a session stored before its format's naming changed answers today's name).
    func signInProvider(_ stored: String, of account: Account) -> String
    /// The claims of an ID token of `content`'s session, signed by the broker's current key.
    func claims(of content: SessionTokenContent, settings: SessionSettings) -> [String: JSONValue]
    /// Whether a refresh retires the refresh token it was sent for a new one (reuse detection), or answers the
    /// same one, valid until the session is revoked (clients that keep their first refresh token).
    var rotatesRefreshTokens: Bool { get }
    /// The session claims of a sign-in finished with a second factor of `type` (`totp`, `recovery`) and, for an
    /// authenticator, the factor's id: `mfa` (the default); a format may keep more for its own ID tokens.
    func secondFactorClaims(_ type: String, factorID: String?) -> [String: JSONValue]
}

extension SessionFormat {
    /// The label itself.
    public func signInProvider(_ label: String) -> String { label }

    /// ``signInProvider(_:)`` of the stored name.
    public func signInProvider(_ stored: String, of account: Account) -> String { signInProvider(stored) }

    /// Rotation with reuse detection (the native API's rule).
    public var rotatesRefreshTokens: Bool { true }

    /// `mfa` alone.
    public func secondFactorClaims(_ type: String, factorID: String?) -> [String: JSONValue] {
        ["mfa": .string(type)]
    }
}

/// The broker's own ID tokens (contract section 3): `iss` the broker, `aud` the project, `sub`, `iat`, `exp`,
/// `auth_time`, `email`, `email_verified`, `sign_in_provider`, `sid`, the custom claims at the top level.
public struct NativeSessionFormat: SessionFormat {
    /// Creates the format.
    public init() {}

    /// ``SessionSurface/native``.
    public var surface: SessionSurface { .native }

    /// The native claims: the account's custom claims, the session's own (a hook's) over them, the standard claims
    /// over both.
    public func claims(of content: SessionTokenContent, settings: SessionSettings) -> [String: JSONValue] {
        let account = content.account
        let issuedAt = Int64(content.now.timeIntervalSince1970)
        var claims: [String: JSONValue] = SessionService.customClaims(of: account) ?? [:]
        if let session = content.sessionClaims.flatMap({ JSONValue.parse(Array($0.utf8))?.objectValue }) {
            claims.merge(session) { _, own in own }
        }
        // The standard claims, set over both (no dictionary of their own to merge).
        claims.reserveCapacity(claims.count + 10)
        claims["iss"] = .string(settings.issuer)
        claims["aud"] = .string(settings.projectID)
        claims["sub"] = .string(account.id.rawValue)
        claims["iat"] = .int(issuedAt)
        claims["exp"] = .int(issuedAt + Int64(settings.idTokenTTL))
        claims["auth_time"] = .int(Int64(content.authTime.timeIntervalSince1970))
        claims["email_verified"] = .bool(account.emailVerified)
        claims["sign_in_provider"] = .string(content.provider)
        claims["sid"] = .string(content.sessionID)
        if let email = account.email { claims["email"] = .string(email) }
        return claims
    }
}

/// Mints the tokens an app exchanges elsewhere for a session there (a custom token), when configured.
public protocol CustomTokenMinting: Sendable {
    /// A custom token for `uid`, with optional developer claims.
    func mint(uid: AccountID, claims: [String: JSONValue]?) throws -> String
}
