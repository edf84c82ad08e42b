import BrokerCrypto
import BrokerIdentity
public import BrokerModel
package import BrokerStorage
public import Foundation

/// The tokens handed to an app after a sign-in or refresh.
public struct SessionTokens: Sendable {
    /// The broker's ID token.
    public var idToken: String
    /// The opaque refresh token.
    public var refreshToken: String
    /// Seconds until the ID token expires.
    public var expiresIn: Int
    /// A custom token, when a service account is configured.
    public var customToken: String?
}

/// A valid ID token of a live session.
public struct AuthenticatedSession: Sendable {
    /// The account (`sub`).
    public var accountID: AccountID
    /// The session (`sid`).
    public var sessionID: String
    /// The token's claims.
    public var claims: [String: JSONValue]
}

/// The token settings of a session service.
public struct SessionSettings: Sendable {
    /// `iss` of the broker's ID tokens.
    public var issuer: String
    /// `aud` of the broker's ID tokens.
    public var projectID: String
    /// ID token lifetime.
    public var idTokenTTL: TimeInterval
    /// Refresh token lifetime.
    public var refreshTokenTTL: TimeInterval
    /// How long after a rotation the retired token may still be presented (concurrent refreshes of one app).
    public var reuseGrace: TimeInterval = 10

    /// Creates settings.
    public init(issuer: String, projectID: String, idTokenTTL: TimeInterval, refreshTokenTTL: TimeInterval) {
        self.issuer = issuer
        self.projectID = projectID
        self.idTokenTTL = idTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
    }

    /// The settings of a parsed config.
    public init(config: BrokerConfig) {
        self.init(
            issuer: config.issuer, projectID: config.projectID, idTokenTTL: config.idTokenTTL,
            refreshTokenTTL: config.refreshTokenTTL)
    }
}

/// Mints the broker's ID tokens in the shape of the session's listener (its ``SessionFormat``), issues and rotates
/// refresh tokens, and mints custom tokens.
public struct SessionService: Sendable {
    private let store: any AccountStore & SessionStore
    let keys: KeyRing
    let clock: any Clock
    let settings: SessionSettings
    private let customTokens: (any CustomTokenMinting)?
    /// The formats of the listeners' sessions, by surface: the native one, and those ``register(_:)`` added.
    private var formats: [SessionSurface: any SessionFormat] = [.native: NativeSessionFormat()]

    /// Creates the service; `customTokens` mints the custom token of every session body, when configured.
    package init(
        store: any AccountStore & SessionStore, keys: KeyRing, clock: any Clock, settings: SessionSettings,
        customTokens: (any CustomTokenMinting)?
    ) {
        self.store = store
        self.keys = keys
        self.clock = clock
        self.settings = settings
        self.customTokens = customTokens
    }

    /// Adds (or replaces) the format of `format`'s listener's sessions.
    public mutating func register(_ format: any SessionFormat) { formats[format.surface] = format }

    /// The format of `surface`'s sessions (the native one for a surface no format was registered for).
    func format(of surface: SessionSurface) -> any SessionFormat { formats[surface] ?? NativeSessionFormat() }

    /// A new session for a sign-in with `provider`: the opaque refresh token for the app, and the grant to
    /// store with the sign-in's account change (``AccountWriteOptions/issuing``).
    /// A session made on `surface` works only there; its ID tokens have that surface's shape, and its format names
    /// the sign-in method (``SessionFormat/signInProvider(_:)``).
    /// `claims` (JSON object text) are added to every ID token of the session, over the account's own.
    /// `authTime`, for a renewal that continues a signed-in session, is that session's sign-in time (default: now).
    public func grant(
        provider: String, surface: SessionSurface = .native, claims: String? = nil, authTime: Date? = nil
    ) -> (refreshToken: String, grant: SessionGrant) {
        let now = clock.now
        let token = Base64URL.encode(SecureRandom.bytes(32))
        let grant = SessionGrant(
            tokenHash: SessionService.hash(token), sessionID: SessionGrant.newSessionID(at: now),
            signInProvider: formats[surface]?.signInProvider(provider) ?? provider, createdAt: now,
            expiresAt: rotates(surface) ? now + settings.refreshTokenTTL : Self.unendingExpiry, surface: surface,
            claims: claims, authTime: authTime.map { min($0, now) })
        return (token, grant)
    }

    /// The expiry of a refresh token that is never rotated: none before the session is revoked (the last second
    /// of year 9999, a time every store keeps).
    public static let unendingExpiry = Date(timeIntervalSince1970: 253_402_300_799)

    /// Whether the sessions of `surface` rotate their refresh tokens (``SessionFormat/rotatesRefreshTokens``).
    func rotates(_ surface: SessionSurface) -> Bool { formats[surface]?.rotatesRefreshTokens ?? true }

    /// Stores `grant`'s session for `account` on its own (a renewal with no account change).
    public func store(_ grant: SessionGrant, for account: AccountID) async throws {
        try await store.insertRefreshToken(grant.record(for: account))
    }

    /// The session body's tokens for `account` whose sign-in stored `grant`, made with `refreshToken`.
    public func tokens(for account: Account, grant: SessionGrant, refreshToken: String) async throws -> SessionTokens {
        try await tokens(
            for: account, provider: grant.signInProvider, sessionID: grant.sessionID, refreshToken: refreshToken,
            surface: grant.surface, claims: grant.claims, authTime: grant.authTime, now: clock.now)
    }

    /// Exchanges a refresh token for a new session body, retiring it. A retired token presented again revokes
    /// the whole session, unless it comes within the grace period of its rotation. A session whose format does not
    /// rotate (``SessionFormat/rotatesRefreshTokens``) answers the same token again, recording its use. A token of
    /// a session made on another `surface` is refused as unknown.
    public func refresh(_ refreshToken: String, surface: SessionSurface = .native) async throws -> (Account, SessionTokens) {
        let hash = SessionService.hash(refreshToken)
        let now = clock.now
        for _ in 0..<2 {
            guard let (record, stored) = try await store.refreshTokenAndAccount(hash: hash) else {
                throw SessionError(.invalidRefreshToken, "unknown", refreshProblem: .unknown)
            }
            guard record.surface == surface else {
                throw SessionError(
                    .invalidRefreshToken, "a session of the \(record.surface.rawValue) listener", refreshProblem: .unknown)
            }
            guard record.revokedAt == nil, record.expiresAt > now else {
                throw SessionError(.invalidRefreshToken, "revoked or expired", refreshProblem: .ended)
            }
            guard let account = stored else {
                throw SessionError(.invalidRefreshToken, "account gone", refreshProblem: .accountGone)
            }
            guard !account.disabled else { throw AccountError(.userDisabled) }
            if let validAfter = account.tokensValidAfter, record.createdAt < validAfter {
                throw SessionError(
                    .invalidRefreshToken, "issued before the account's sessions were revoked", refreshProblem: .ended)
            }
            guard rotates(record.surface) else {
                // The same token answers again, valid until the session is revoked; the use is recorded.
                guard try await store.useRefreshToken(hash: hash, at: now) else {
                    throw SessionError(.invalidRefreshToken, "session revoked", refreshProblem: .ended)
                }
                return (
                    account,
                    try await tokens(
                        for: account, provider: record.signInProvider, sessionID: record.sessionID,
                        refreshToken: refreshToken, surface: record.surface, claims: record.claims,
                        authTime: record.authTime, now: now)
                )
            }
            let (token, successor) = newRefreshToken(
                sessionID: record.sessionID, account: account.id, provider: record.signInProvider,
                surface: record.surface, claims: record.claims, authTime: record.authTime, now: now)
            if let rotatedAt = record.rotatedAt {
                guard now.timeIntervalSince(rotatedAt) <= settings.reuseGrace else {
                    try await store.revokeSession(id: record.sessionID, at: now)
                    throw SessionError(
                        .invalidRefreshToken, "reused refresh token; session revoked", refreshProblem: .ended)
                }
                guard try await store.addToSession(successor) else {
                    throw SessionError(.invalidRefreshToken, "session revoked", refreshProblem: .ended)
                }
            } else if try await !store.rotateRefreshToken(hash: hash, at: now, successor: successor) {
                continue  // a concurrent refresh rotated it first: decide again as a retry
            }
            return (
                account,
                try await tokens(
                    for: account, provider: record.signInProvider, sessionID: record.sessionID, refreshToken: token,
                    surface: record.surface, claims: record.claims, authTime: record.authTime, now: now)
            )
        }
        throw SessionError(.invalidRefreshToken, "kept losing rotations", refreshProblem: .ended)
    }

    /// Revokes the session of `refreshToken` and returns its account; unknown tokens, and those of another
    /// `surface`'s sessions, are ignored (nil).
    @discardableResult
    public func signOut(_ refreshToken: String, surface: SessionSurface = .native) async throws -> AccountID? {
        guard let record = try await store.refreshToken(hash: SessionService.hash(refreshToken)),
            record.surface == surface
        else { return nil }
        try await store.revokeSession(id: record.sessionID, at: clock.now)
        return record.accountID
    }

    /// A custom token for `account`, when a minter is configured (a service account).
    public func customToken(for account: Account, claims: [String: JSONValue]? = nil) throws -> String? {
        try customTokens?.mint(uid: account.id, claims: claims ?? SessionService.customClaims(of: account))
    }

    /// The session an ID token belongs to, if the token is valid and its session is live (exact revocation:
    /// once a session is ended, no ID token it minted is accepted again, whatever second it was minted in), with
    /// the session's account, read with its liveness in one look-up: nil when the account is gone (the caller
    /// decides what that means). Anything else is 401 `UNAUTHENTICATED`, an ended session before the account is
    /// read.
    public func authenticateWithAccount(idToken token: String) async throws -> (AuthenticatedSession, Account?) {
        let claims = try await verifyIDToken(token)
        guard let subject = claims["sub"]?.stringValue, let sessionID = claims["sid"]?.stringValue,
            (1...128).contains(sessionID.utf8.count)
        else { throw SessionError(.unauthenticated, "no session id") }
        let accountID = AccountID(subject)
        let (live, account) = try await store.liveSessionAccount(id: sessionID, accountID: accountID, at: clock.now)
        guard live else { throw SessionError(.unauthenticated, "session ended") }
        return (AuthenticatedSession(accountID: accountID, sessionID: sessionID, claims: claims), account)
    }

    /// How old a session's sign-in (`auth_time`) may be for a sensitive change: changing the password or the
    /// email, deleting the account, second factors and passkeys (contract section 4).
    public static let recentSignInWindow: TimeInterval = 5 * 60

    /// Refuses with ``SessionError/Code/recentSignInRequired`` unless the verified ID token `claims` name a
    /// sign-in (`auth_time`) at most ``recentSignInWindow`` ago. A refresh keeps `auth_time`, so only a new
    /// sign-in makes a session recent again.
    public func requireRecentSignIn(_ claims: [String: JSONValue]) throws {
        // `auth_time` has whole seconds: compare whole seconds, so "at most 5 minutes" holds to the second.
        guard let authTime = claims["auth_time"]?.doubleValue,
            clock.now.timeIntervalSince1970.rounded(.down) - authTime <= Self.recentSignInWindow
        else { throw SessionError(.recentSignInRequired, "the session signed in more than 5 minutes ago") }
    }

    /// Refuses, as the check of its token's claims does, a sensitive change asked by `user`'s session, except a
    /// guest's, which always counts as recent: a guest cannot sign in again (contract sections 4 and 13).
    public func requireRecentSignIn(_ user: SignedInUser) throws {
        guard !user.account.isAnonymous else { return }
        try requireRecentSignIn(user.claims)
    }

    /// The sign-in time (`auth_time`) a verified ID token's `claims` name, for a renewal that continues its session.
    public static func authTime(of claims: [String: JSONValue]) -> Date? {
        claims["auth_time"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
    }

    /// Whether session `id` of `account` is live now: it holds a token neither revoked nor expired.
    public func isLive(session id: String, of account: AccountID) async throws -> Bool {
        try await store.isSessionLive(id: id, accountID: account, at: clock.now)
    }

    /// Verifies one of the broker's own ID tokens (signature, issuer, audience, expiry) and returns its claims;
    /// it does not check the session (``authenticateWithAccount(idToken:)`` does).
    public func verifyIDToken(_ token: String) async throws -> [String: JSONValue] {
        guard let jwt = try? JWT(parsing: token), let kid = jwt.keyID,
            let key = await keys.key(id: kid), jwt.header["alg"]?.stringValue == key.algorithm.rawValue,
            key.verify(signature: jwt.signature, message: jwt.signingInput),
            jwt.claims["iss"]?.stringValue == settings.issuer, jwt.claims["aud"]?.stringValue == settings.projectID,
            let expiry = jwt.claims["exp"]?.doubleValue, expiry > clock.now.timeIntervalSince1970,
            jwt.claims["sub"]?.stringValue?.isEmpty == false
        else { throw SessionError(.unauthenticated) }
        return jwt.claims
    }

    /// The broker's ID token for `account`, naming its session (`sid`) and its sign-in time (`auth_time`); the
    /// session's own claims (`sessionClaims`, JSON object text, from a hook) go over the account's, and the
    /// standard claims over both.
    public func idToken(
        for account: Account, provider: String, sessionID: String, authTime: Date, now: Date,
        sessionClaims: String? = nil
    ) async throws -> String {
        try await idToken(
            SessionTokenContent(
                account: account, provider: provider, sessionID: sessionID, sessionClaims: sessionClaims,
                authTime: authTime, now: now),
            format: NativeSessionFormat())
    }

    /// An ID token of `content`'s session in `format`'s shape, signed by the current key.
    func idToken(_ content: SessionTokenContent, format: any SessionFormat) async throws -> String {
        let key = try await keys.current()
        let claims = format.claims(of: content, settings: settings)
        let header: [String: JSONValue] = ["alg": .string(key.algorithm.rawValue), "kid": .string(key.id.rawValue), "typ": "JWT"]
        return try JWT.encode(header: header, claims: claims, sign: key.sign)
    }

    private func tokens(
        for account: Account, provider: String, sessionID: String, refreshToken: String, surface: SessionSurface,
        claims: String?, authTime: Date, now: Date
    ) async throws -> SessionTokens {
        guard let format = formats[surface] else {
            throw SessionError(
                .invalidRefreshToken, "no listener's format for \(surface.rawValue)", refreshProblem: .unknown)
        }
        // Named again at each mint, so a session stored before its format's naming changed answers today's name.
        let content = SessionTokenContent(
            account: account, provider: format.signInProvider(provider, of: account), sessionID: sessionID,
            sessionClaims: claims, authTime: authTime, now: now)
        return SessionTokens(
            idToken: try await idToken(content, format: format),
            refreshToken: refreshToken,
            expiresIn: Int(settings.idTokenTTL), customToken: try customToken(for: account))
    }

    private func newRefreshToken(
        sessionID: String, account: AccountID, provider: String, surface: SessionSurface, claims: String?,
        authTime: Date, now: Date
    ) -> (String, RefreshTokenRecord) {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        let record = RefreshTokenRecord(
            tokenHash: SessionService.hash(token), sessionID: sessionID, accountID: account, signInProvider: provider,
            createdAt: now, expiresAt: now + settings.refreshTokenTTL, surface: surface, claims: claims,
            authTime: authTime)
        return (token, record)
    }

    /// SHA-256 hex: refresh tokens are stored only as this.
    static func hash(_ token: String) -> String { Hex.encode(Digest.sha256(token)) }

    /// The account's stored developer claims, without a name the broker sets itself
    /// (``CustomClaims/developerClaims(_:)``): `mfa` and the rest come only from the session.
    package static func customClaims(of account: Account) -> [String: JSONValue]? {
        account.customClaims.flatMap { JSONValue.parse(Array($0.utf8))?.objectValue }.map(CustomClaims.developerClaims)
    }
}
