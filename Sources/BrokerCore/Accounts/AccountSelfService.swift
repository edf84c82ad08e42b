public import Foundation

/// What signed-in users do to their own accounts, whichever surface asks (`/v1/me`, the compatibility listener's
/// `accounts:update` and `accounts:delete`): each change checked, written and audited in its own transaction, a
/// sensitive one (a password change, a deletion) only with a sign-in at most five minutes old (contract section 4),
/// and a password change renewing the session that asked, since it ends every other.
public struct AccountSelfService: Sendable {
    let accounts: AccountService
    let sessions: SessionService
    let signIn: SignInFlow
    /// Second factors (contract section 14); nil when `mfa.totp` is off.
    let secondFactors: SecondFactorService?

    /// Creates the service.
    public init(
        accounts: AccountService, sessions: SessionService, signIn: SignInFlow,
        secondFactors: SecondFactorService? = nil
    ) {
        self.secondFactors = secondFactors
        self.accounts = accounts
        self.sessions = sessions
        self.signIn = signIn
    }

    /// The user a verified ID token names: the live account and the token's claims.
    public struct User: Sendable {
        /// The account, as read when the token was checked.
        public var account: Account
        /// The ID token's claims (`auth_time`, `sign_in_provider`).
        public var claims: [String: JSONValue]

        /// Creates a signed-in user.
        public init(account: Account, claims: [String: JSONValue]) {
            self.account = account
            self.claims = claims
        }

        /// The session's sign-in time (`auth_time`), which a renewal that continues the session keeps.
        public var authTime: Date? { SessionService.authTime(of: claims) }
    }

    /// How the session after a password change is named: the asking session continued (its sign-in method and
    /// `auth_time`, the native API) or a new sign-in with `provider` (the compatibility listener, whose SDKs see one).
    public enum Renewal: Sendable {
        /// The asking session goes on: same sign-in method, same `auth_time`.
        case continuing(provider: String)
        /// A new sign-in with this provider id, at this moment.
        case newSignIn(provider: String)
    }

    /// Refuses a sensitive change asked with a session that signed in more than five minutes ago; a guest's session
    /// always counts as recent, since a guest cannot sign in again (contract sections 4 and 13).
    func requireRecentSignIn(_ user: User) throws {
        guard !user.account.isAnonymous else { return }
        try sessions.requireRecentSignIn(user.claims)
    }

    /// Updates the display name and photo.
    public func updateProfile(_ user: User, _ change: ProfileChange, requestID: String) async throws -> Account {
        try await accounts.updateProfile(user.account.id, change, requestID: requestID)
    }

    /// Sets a new password (recent sign-in required): every other session ends in the change's transaction and
    /// the new session's tokens are answered, named as `renewal` says, on `surface`.
    public func changePassword(
        _ user: User, to password: String, renewal: Renewal, surface: SessionSurface, requestID: String
    ) async throws -> SignInResult {
        try requireRecentSignIn(user)
        let (accounts, uid) = (self.accounts, user.account.id)
        let (provider, authTime): (String, Date?) =
            switch renewal {
            case .continuing(let provider): (provider, user.authTime)
            case .newSignIn(let provider): (provider, nil)
            }
        return try await signIn.renew(
            user.account, provider: provider, because: .passwordChange, surface: surface, authTime: authTime
        ) { grant in
            try await accounts.changePassword(uid, to: password, session: grant, requestID: requestID)
        }
    }

    /// New tokens for the same sign-in after a change (its `auth_time` kept).
    public func renewed(
        _ user: User, account: Account, provider: String, surface: SessionSurface
    ) async throws
        -> SignInResult
    {
        try await signIn.renew(account, provider: provider, because: .update, surface: surface, authTime: user.authTime)
    }

    /// Asks for an email change (contract section 9; recent sign-in required): `mail` mails `newEmail` a link
    /// that makes it the account's address once followed
    /// (``EmailActionService/requestEmailChange(for:to:continueURL:acceptLanguage:requestID:)``).
    public func requestEmailChange(
        _ user: User, to newEmail: String, continueURL: String?, acceptLanguage: String?,
        using mail: EmailActionService,
        requestID: String
    ) async throws {
        try requireRecentSignIn(user)
        try await mail.requestEmailChange(
            for: user.account, to: newEmail, continueURL: continueURL, acceptLanguage: acceptLanguage,
            requestID: requestID)
    }

    /// Revokes at `provider` what `authorizationCode` grants the user of the account's `identity` (the app's
    /// `revokeToken`, before a deletion): the code is exchanged now, the revocation queued in the outbox and audited.
    public func revokeProviderToken(
        _ user: User, identity: Identity, provider: any AuthorizationCodeRevoking, authorizationCode: String,
        requestID: String
    ) async throws {
        let jobs = try await provider.revocationJobs(
            authorizationCode: authorizationCode, for: identity, at: accounts.clock.now)
        try await accounts.queueProviderTokenRevocation(
            user.account.id, provider: provider.id, jobs: jobs, requestID: requestID)
    }

    /// Links another provider's identity (``SignInFlow/link(_:_:)``: counted and audited once).
    public func link(_ user: User, _ request: SignInRequest) async throws -> Account {
        try await signIn.link(user.account.id, request)
    }

    /// Unlinks a provider (refused for the account's last way to sign in).
    public func unlink(_ user: User, provider: ProviderID, requestID: String) async throws -> Account {
        try await accounts.unlink(user.account.id, provider: provider, requestID: requestID)
    }

    /// Deletes the account, its identities and sessions (recent sign-in required).
    public func delete(_ user: User, requestID: String) async throws {
        try requireRecentSignIn(user)
        try await accounts.delete(user.account.id, requestID: requestID)
    }
}
