public import Foundation

extension AccountService {
    /// Failures within this window count towards a lockout.
    public static let lockoutWindow: TimeInterval = 15 * 60
    /// Failures within the window that lock password sign-in.
    public static let lockoutThreshold = 10

    /// Creates an email/password account (contract section 4). The email is unique case-insensitively.
    /// `session` is stored with it, and with `requestID` its `sign_up` audit event, in one transaction.
    public func signUp(
        email rawEmail: String, password: String, displayName: String?, session: SessionGrant? = nil,
        requestID: String? = nil
    ) async throws -> Account {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        try PasswordPolicy.check(email: email, password: password)
        guard try await store.account(email: email) == nil else { throw AccountError(.emailExists) }
        let hash = try await passwords.hash(password)
        let now = clock.now
        let account = Account(
            id: AccountID.generate(), email: email, emailVerified: false, displayName: displayName, createdAt: now,
            lastSignInAt: now, passwordHash: hash, origin: .signup)
        do {
            let events = requestID.map { [Self.passwordEvent(.signUp, uid: account.id, at: now, outcome: "created", requestID: $0)] }
            try await store.create(account, options: AccountWriteOptions(issuing: session, recording: events ?? []))
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw AccountError(.emailExists)  // a concurrent sign-up with the same email won
        }
        return account
    }

    /// Signs in with email and password. A wrong email and a wrong password get the same answer after the
    /// same work; ten failures for one email within 15 minutes lock it, even against the right password.
    /// `session` is stored with the sign-in, and with `requestID` its `sign_in` audit event, in one transaction.
    public func passwordSignIn(
        email rawEmail: String, password: String, session: SessionGrant? = nil, requestID: String? = nil
    ) async throws -> Account {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        let key = email.lowercased()
        let now = clock.now
        // The attempt is recorded (as a failure) before the password is checked, atomically with the count:
        // concurrent guesses cannot all slip under the limit.
        if let unlocksAt = try await store.reserveLoginAttempt(
            emailKey: key, at: now, window: Self.lockoutWindow, limit: Self.lockoutThreshold)
        {
            throw AccountError(.tooManyAttempts, retryAfter: max(1, Int(unlocksAt.timeIntervalSince(now).rounded(.up))))
        }
        let account = try await store.account(email: email)
        let hash = account.flatMap { $0.hasUsablePassword ? $0.passwordHash : nil }
        let matches: Bool
        do {
            matches = try await passwords.verify(password, against: hash ?? decoyHash)
        } catch {
            // No password was checked: this attempt must not count towards the lockout.
            try? await store.releaseLoginAttempt(emailKey: key, at: now)
            throw error
        }
        guard let account, let hash, matches else { throw AccountError(.invalidLoginCredentials) }
        // A password a provider's mapping made that is not the owner's own (an imported account's public id at
        // that provider) is a wrong password, counted as one.
        guard !passwordGuards.contains(where: { $0.refusesPasswordSignIn(password, to: account) }) else {
            throw AccountError(.invalidLoginCredentials)
        }
        guard !account.disabled else { throw AccountError(.userDisabled) }
        try await store.clearLoginFailures(emailKey: key)
        // An imported hash (Firebase's scrypt and the others) is replaced by Argon2id in the sign-in's own
        // transaction (contract section 8): the session and the new hash commit together, or neither does.
        // When the hasher's queue is full the sign-in goes on with the old hash: the next one upgrades it.
        let rehash = passwords.needsRehash(hash) ? try? await passwords.hash(password) : nil
        do {
            let events = requestID.map { [Self.passwordEvent(.signIn, uid: account.id, at: now, requestID: $0)] }
            let options = AccountWriteOptions(issuing: session, recording: events ?? [])
            // The password verified above must still be the account's (a takeover may have removed it).
            return try await store.recordPasswordSignIn(
                id: account.id, verifiedHash: hash, rehash: rehash, at: now, options: options)
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.invalidLoginCredentials)  // deleted meanwhile
        }
    }

    /// An audit event of the password provider, by the user.
    private static func passwordEvent(
        _ action: AuditAction, uid: AccountID, at time: Date, outcome: String = "success", requestID: String
    ) -> AuditEvent {
        AuditEvent(time: time, uid: uid, action: action, provider: "password", actor: .user, outcome: outcome, requestID: requestID)
    }
}
