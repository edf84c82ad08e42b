public import BrokerModel
public import Foundation

/// One refresh token, stored by its hash. Tokens of one sign-in share a `sessionID`; each rotation
/// retires the presented token and adds its successor to the same session.
public struct RefreshTokenRecord: Sendable, Equatable {
    /// SHA-256 hex of the opaque token.
    public var tokenHash: String
    /// The session (chain of rotations) this token belongs to.
    public var sessionID: String
    /// The account.
    public var accountID: AccountID
    /// The provider of the sign-in that began the session (a provider's id, or `password`).
    public var signInProvider: String
    /// When the token was issued.
    public var createdAt: Date
    /// When the token stops working.
    public var expiresAt: Date
    /// When it was exchanged for a successor, if it was.
    public var rotatedAt: Date?
    /// When it (and its session) were revoked, if they were.
    public var revokedAt: Date?
    /// When it was last exchanged for ID tokens without being rotated (a session that does not rotate its
    /// refresh token), if it was.
    public var usedAt: Date?
    /// The listener its session was made on (it works only there).
    public var surface: SessionSurface
    /// Claims the session's ID tokens carry besides the account's (a custom token's `claims`), as the
    /// JSON text of an object; nil for none.
    public var claims: String?
    /// When the session's sign-in happened (its ID tokens' `auth_time`), the same for every token of the
    /// session: a refresh keeps it, a sign-in elsewhere never moves it.
    public var authTime: Date

    /// Creates a record; `authTime` defaults to `createdAt`.
    public init(
        tokenHash: String, sessionID: String, accountID: AccountID, signInProvider: String, createdAt: Date,
        expiresAt: Date, rotatedAt: Date? = nil, revokedAt: Date? = nil, surface: SessionSurface = .native,
        claims: String? = nil, authTime: Date? = nil, usedAt: Date? = nil
    ) {
        self.usedAt = usedAt
        self.surface = surface
        self.claims = claims
        self.authTime = authTime ?? createdAt
        self.tokenHash = tokenHash
        self.sessionID = sessionID
        self.accountID = accountID
        self.signInProvider = signInProvider
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.rotatedAt = rotatedAt
        self.revokedAt = revokedAt
    }
}

/// Where refresh tokens live.
public protocol SessionStore: Sendable {
    /// Stores a newly issued token.
    func insertRefreshToken(_ record: RefreshTokenRecord) async throws
    /// The record of the token with this hash.
    func refreshToken(hash: String) async throws -> RefreshTokenRecord?
    /// The record of the token with this hash and its account (nil when the account is gone), read together: a
    /// refresh's one look-up. Nil when no token has this hash.
    func refreshTokenAndAccount(hash: String) async throws -> (RefreshTokenRecord, Account?)?
    /// Marks the token `hash` rotated at `date` and stores `successor`, in one transaction, only if the
    /// token was neither rotated nor revoked before; returns false (and stores nothing) otherwise.
    func rotateRefreshToken(hash: String, at date: Date, successor: RefreshTokenRecord) async throws -> Bool
    /// Stores `successor` for a token rotated moments ago (a concurrent retry), if its session is not revoked.
    func addToSession(_ successor: RefreshTokenRecord) async throws -> Bool
    /// Records a use of the token with this hash at `date`, without rotating it (a session that keeps its
    /// refresh token): true when it is live (not revoked), false (and nothing changed) when it is not.
    func useRefreshToken(hash: String, at date: Date) async throws -> Bool
    /// Deletes what can never count again: refresh tokens and single-use marks that expired before `date`.
    /// Returns how many rows went.
    @discardableResult
    func purgeExpired(before date: Date) async throws -> Int
    /// Whether session `id` of account `accountID` is live at `date`: it holds a token neither revoked nor expired.
    /// (A sign-out, a revocation or the account's deletion ends it; a rotation does not.)
    func isSessionLive(id: String, accountID: AccountID, at date: Date) async throws -> Bool
    /// ``isSessionLive(id:accountID:at:)`` and, when the session is live, account `accountID` with its identities
    /// (nil when it is gone), read together: what a request signed in with an ID token reads, in one look-up.
    /// The account is not read for a session that is not live.
    func liveSessionAccount(
        id: String, accountID: AccountID, at date: Date
    ) async throws -> (live: Bool, account: Account?)
    /// Revokes every token of the session.
    func revokeSession(id: String, at date: Date) async throws
    /// Revokes every token of the account, and its ID tokens issued before `date`'s second
    /// (`Account.tokensValidAfter`).
    func revokeSessions(accountID: AccountID, at date: Date) async throws
}

/// Where signing keys live.
public protocol SigningKeyStore: Sendable {
    /// Every stored key, oldest first.
    func signingKeys() async throws -> [StoredSigningKey]
    /// Stores a new key.
    func insertSigningKey(_ key: StoredSigningKey) async throws
    /// Stores `key` (active) unless an active key exists, decided inside the transaction, so that instances
    /// starting together on an empty database end up with one key; true when it was stored.
    func insertFirstSigningKey(_ key: StoredSigningKey) async throws -> Bool
    /// Marks a key retired.
    func retireSigningKey(id: KeyID, at date: Date) async throws
    /// In one transaction: retires every active key and stores `key` (which must be active), so that there
    /// is always exactly one signing key, whoever rotates.
    func rotateSigningKey(to key: StoredSigningKey, at date: Date) async throws
}

/// Everything the broker persists, behind one backend: every store protocol, so a backend that lacks one does not
/// compile and no code looks a feature up with `as?`.
public typealias BrokerStore = AccountStore & SessionStore & SigningKeyStore & LoginAttemptStore & AccountDirectory
    & AccountQuerying & AuditLog & ConsoleStore & AccountImporting & EmailActionStore & OutboxStore
    & StorageHealthChecking & GuestStore & SecondFactorStore & ProviderConfigStore & EventAnnouncing & PasskeyStore

extension SessionGrant {
    /// The refresh-token record of this grant for `account`.
    public func record(for account: AccountID) -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: tokenHash, sessionID: sessionID, accountID: account, signInProvider: signInProvider,
            createdAt: createdAt, expiresAt: expiresAt, surface: surface, claims: claims, authTime: authTime)
    }
}
