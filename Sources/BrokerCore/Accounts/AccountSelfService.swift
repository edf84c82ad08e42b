public import BrokerIdentity
public import BrokerModel
import Foundation

/// What signed-in users do to their own accounts, whichever surface asks (`/v1/me`, or another listener's account
/// calls): each change checked, written and audited in its own transaction, a sensitive one (a password change, a
/// deletion) only with a sign-in at most five minutes old (contract section 4), and a password change renewing the
/// session that asked, since it ends every other.
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

    /// The user a verified ID token names (``SignedInUser``).
    public typealias User = SignedInUser

    /// Refuses a sensitive change asked with a session that signed in more than five minutes ago; a guest's session
    /// always counts as recent, since a guest cannot sign in again (contract sections 4 and 13).
    public func requireRecentSignIn(_ user: User) throws {
        try sessions.requireRecentSignIn(user)
    }

    /// Updates the display name and photo.
    public func updateProfile(_ user: User, _ change: ProfileChange, requestID: String) async throws -> Account {
        try await accounts.updateProfile(user.account.id, change, requestID: requestID)
    }

    /// Sets a new password (recent sign-in required): every other session ends in the change's transaction and the new
    /// session's tokens are answered, its sign-in method named `provider` on `surface` (the native API keeps the asking
    /// session's; another listener may name `password`). The new session keeps the asking session's `auth_time`: a
    /// change is no sign-in (contract section 4).
    public func changePassword(
        _ user: User, to password: String, provider: String, surface: SessionSurface, requestID: String
    ) async throws -> SignInResult {
        try requireRecentSignIn(user)
        let (accounts, uid) = (self.accounts, user.account.id)
        return try await signIn.renew(
            user.account, provider: provider, because: .passwordChange, surface: surface,
            continuing: try user.sessionAuthTime()
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
        try await signIn.renew(
            account, provider: provider, because: .update, surface: surface, continuing: try user.sessionAuthTime())
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

    /// Unlinks a provider (a recent sign-in required, contract section 4; refused for the account's last way to
    /// sign in).
    public func unlink(_ user: User, provider: ProviderID, requestID: String) async throws -> Account {
        try await unlink(user, providers: [provider], requestID: requestID)
    }

    /// Unlinks every one of `providers` in one transaction (a recent sign-in required; all or none, never the last
    /// way in).
    public func unlink(_ user: User, providers: Set<ProviderID>, requestID: String) async throws -> Account {
        try requireRecentSignIn(user)
        return try await accounts.unlink(user.account.id, providers: providers, requestID: requestID)
    }

    /// Deletes the account, its identities and sessions (recent sign-in required).
    public func delete(_ user: User, requestID: String) async throws {
        try requireRecentSignIn(user)
        try await accounts.delete(user.account.id, requestID: requestID)
    }
}
