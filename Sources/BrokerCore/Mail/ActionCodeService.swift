import BrokerCrypto
public import BrokerModel
package import BrokerStorage
import Foundation

/// Action codes without mail: the links an admin caller asks for to hand out itself, the look-up of what a code is
/// for (without using it up), confirming a verification or reset, and signing in with an email sign-in code.
///
/// Codes are those of ``EmailActionService``: 32 random bytes (base64url, no padding), stored only as SHA-256
/// hashes, valid for ``EmailActionService/codeLifetime``, used up by the account write that acts on them (a
/// single-use mark `oob:<hash>` in the same transaction).
public struct ActionCodeService: Sendable {
    let accounts: any AccountStore & LoginAttemptStore
    let codes: any EmailActionStore
    let passwords: any PasswordHashing
    let clock: any Clock
    let issuer: String
    let revocation: SessionRevocation
    let doorbell: OutboxDoorbell?
    /// Writes the mail an email change's confirmation sends the old address; nil without a `mail` section (no
    /// mail, and no recovery code).
    let mail: MailComposer?

    /// Creates the service. `issuer` is the broker's public address (links point at its `/auth/action`);
    /// `revocation` (with a service account) queues the job that revokes the uid's sessions beyond the broker's whenever a code ends the account's sessions.
    /// With `mail` (the `mail` section) and `cipher`, a confirmed email change mails the old address its recovery
    /// link.
    package init(
        accounts: any AccountStore & LoginAttemptStore, codes: any EmailActionStore, passwords: any PasswordHashing,
        clock: any Clock, issuer: String, revocation: SessionRevocation, doorbell: OutboxDoorbell? = nil,
        mail: MailSettings? = nil, cipher: OutboxCipher? = nil
    ) {
        self.mail = mail.map { MailComposer(settings: $0, issuer: issuer, cipher: cipher) }
        self.doorbell = doorbell
        self.accounts = accounts
        self.codes = codes
        self.passwords = passwords
        self.clock = clock
        self.issuer = issuer
        self.revocation = revocation
    }

    /// A link handed to the caller instead of mailed.
    public struct Link: Sendable, Equatable {
        /// The address the link is for (the account's spelling when an account holds it).
        public var email: String
        /// The code (shown once; only its hash is stored).
        public var oobCode: String
        /// `{issuer}/auth/action?mode=…&oobCode=…[&continueUrl=…]`.
        public var oobLink: String
    }

    /// What an unused, unexpired code is for.
    public struct CodeInfo: Sendable, Equatable {
        /// The action.
        public var action: MailAction
        /// The address it was issued for (lower-cased); for an email change the account's address it replaces, for
        /// its recovery the address it puts back.
        public var email: String
        /// Where the browser may go next, as given when it was issued.
        public var continueURL: String?
        /// For an email change the new address; for its recovery the account's address now (the one it replaces).
        public var newEmail: String?
    }

    /// What a confirmed verification or reset did.
    public struct Confirmation: Sendable, Equatable {
        /// The account.
        public var account: Account
        /// The action.
        public var action: MailAction
        /// Where the browser may go next, as given when the code was issued.
        public var continueURL: String?
        /// The outbox jobs queued with the change (to wake the worker).
        public var jobs: [OutboxJob]
    }

    /// What proves a verification on the broker's own page (contract section 9). An account that has a password and
    /// never had its email verified may have been made by someone else with this address: whoever made it knows the
    /// password, and whoever reads the inbox may instead choose a new password, which signs the maker out.
    public enum VerificationProof: Sendable, Equatable {
        /// The code alone (`/v1/oob/confirm`, other listeners).
        case code
        /// The code alone on the broker's page, which found that the account needs no other proof: the change's
        /// transaction checks that it still needs none, so a password set on a never-verified account between the
        /// page's look and the change is ``AccountError/Code/invalidLoginCredentials`` (nothing changes, the code
        /// stays unused, and the page asks for a password next time).
        case unguardedCode
        /// The account's current password, checked (and counted toward its lockout) as a sign-in's is.
        case password(String)
        /// A new password instead: the verification then does what a reset does (sessions end, the password is
        /// replaced, other identities go).
        case newPassword(String)
    }

    /// An email sign-in.
    public struct EmailSignIn: Sendable {
        /// The account signed in to, as saved.
        public var account: Account
        /// What the sign-in did to it: created it, took it over from an unverified owner, or nothing more.
        public var change: SignInOutcome.Change
        /// The outbox jobs queued with the change (to wake the worker).
        public var jobs: [OutboxJob]
        /// Whether the sign-in created it.
        public var isNewUser: Bool { change == .created }
    }

    /// Issues a code for `action` and returns its link, sending nothing and counting no mail request (an admin
    /// asked; `continueURL` is not checked against `mail.allowedContinueUrls`, only for being an absolute URL).
    /// A reset or verification needs an account holding `email` (``ActionCodeError/Code/accountNotFound``);
    /// an email sign-in does not (the sign-in creates the account). An email change's link (`newEmail`, the
    /// address it changes the account holding `email` to) needs that account, and a `newEmail` that is an address
    /// no other account holds (``AccountError/Code/emailExists``); a recovery link is never issued here.
    public func issueLink(
        _ action: MailAction, email rawEmail: String, newEmail rawNewEmail: String? = nil, continueURL: String?,
        requestID: String
    )
        async throws -> Link
    {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        guard PasswordPolicy.isValidEmail(email) else { throw AccountError(.invalidEmail) }
        guard action != .recoverEmail else { throw ActionCodeError(.invalidCode, "a recovery link is not issued") }
        if let continueURL { try Self.checkContinueURL(continueURL) }
        let account = try await accounts.account(email: email)
        let uid: AccountID
        if let account {
            uid = account.id
        } else {
            guard action == .signIn else { throw ActionCodeError(.accountNotFound) }
            uid = AccountID.generate()
        }
        var newEmail: String?
        if action == .verifyAndChangeEmail {
            let target = (rawNewEmail ?? "").trimmingCharacters(in: .whitespaces)
            guard PasswordPolicy.isValidEmail(target) else { throw AccountError(.invalidEmail) }
            if let holder = try await accounts.account(email: target), holder.id != uid {
                throw AccountError(.emailExists)
            }
            newEmail = target
        }
        let now = clock.now
        let secret = Base64URL.encode(SecureRandom.bytes(32))
        let record = OOBCodeRecord(
            codeHash: EmailActionService.hash(secret), action: action, uid: uid, emailKey: email.lowercased(),
            continueURL: continueURL, createdAt: now, expiresAt: now + EmailActionService.codeLifetime,
            targetEmail: newEmail)
        let event = AuditEvent(
            time: now, uid: account?.id, action: .oobLinkIssued, provider: action.rawValue, actor: .admin,
            requestID: requestID)
        try await codes.storeOOBCode(record, recording: [event])
        return Link(
            email: account?.email ?? email, oobCode: secret,
            oobLink: EmailActionService.link(issuer: issuer, action, code: secret, continueURL: continueURL))
    }

    /// What the code is for, without using it up. A malformed, unknown or used code is
    /// ``ActionCodeError/Code/invalidCode``, an expired one ``ActionCodeError/Code/expiredCode``.
    public func inspect(code: String) async throws -> CodeInfo {
        let (record, _) = try await validRecord(code)
        var info = CodeInfo(action: record.action, email: record.emailKey, continueURL: record.continueURL)
        switch record.action {
        case .verifyAndChangeEmail: info.newEmail = record.targetEmail
        case .recoverEmail:
            info.email = record.targetEmail ?? record.emailKey
            info.newEmail = try await accounts.account(id: record.uid)?.email
        default: break
        }
        return info
    }

    /// Whether the broker's page must ask for a ``VerificationProof`` beyond the code: `code` is an unused
    /// verification code of an account that has a usable password and has never had its email verified.
    public func verificationNeedsPassword(code: String) async throws -> Bool {
        let (record, _) = try await validRecord(code)
        guard record.action == .verifyEmail, let account = try await accounts.account(id: record.uid) else {
            return false
        }
        return Self.verificationNeedsPassword(account)
    }

    /// Whether verifying `account`'s email on the broker's page needs a password: it has a usable one and its email
    /// was never verified (whoever made it may not own the inbox).
    static func verificationNeedsPassword(_ account: Account) -> Bool {
        !account.emailVerified && account.hasUsablePassword
    }

    /// Acts on a verification or reset code once, as ``EmailActionService/confirm(code:newPassword:requestID:)``
    /// describes: a verification marks the email verified; a reset sets the new password (Argon2id), marks the
    /// email verified and retires every session (and queues the revocation of the sessions beyond the broker's, and cuts off the uid's custom
    /// tokens minted until then); on an account whose email was never verified, both also remove its other
    /// identities (and so do the same). `expecting`, when given, is the only action
    /// accepted (another is ``ActionCodeError/Code/invalidCode``); an email sign-in code is never accepted here.
    /// `proof` is what the broker's page asked for besides a verification code (``VerificationProof``): a wrong
    /// password is ``AccountError/Code/invalidLoginCredentials`` and counts toward the account's lockout, leaving the
    /// code unused; a new password makes the verification a reset. An email change's codes are confirmed as
    /// ``confirmEmailChange(_:hash:acceptLanguage:requestID:)`` says (`acceptLanguage` chooses the recovery mail's
    /// language).
    public func confirm(
        code: String, expecting: MailAction? = nil, newPassword: String?, proof: VerificationProof = .code,
        requestID: String, acceptLanguage: String? = nil
    )
        async throws -> Confirmation
    {
        let (record, hash) = try await validRecord(code)
        guard record.action != .signIn, expecting == nil || expecting == record.action else {
            throw ActionCodeError(.invalidCode, "the code is for another action")
        }
        if record.action == .verifyAndChangeEmail || record.action == .recoverEmail {
            return try await confirmEmailChange(
                record, hash: hash, acceptLanguage: acceptLanguage, requestID: requestID)
        }
        let now = clock.now
        let current = try await accounts.account(id: record.uid)
        var passwordHash: String?
        // The account's password the page's proof verified: it must still be the account's in the transaction.
        var provenHash: String?
        // The page found no proof needed: the transaction checks it still is not.
        var unguarded = false
        let resets: Bool
        switch (record.action, proof) {
        case (.resetPassword, _):
            guard let newPassword else { throw ActionCodeError(.missingNewPassword) }
            passwordHash = try await hashNewPassword(newPassword)
            resets = true
        case (_, .newPassword(let chosen)):
            passwordHash = try await hashNewPassword(chosen)
            resets = true
        case (_, .password(let password)):
            provenHash = try await verifyPassword(password, of: current, emailKey: record.emailKey, at: now)
            resets = false
        case (_, .code):
            resets = false
        case (_, .unguardedCode):
            unguarded = true
            resets = false
        }
        let event = AuditEvent(
            time: now, uid: record.uid, action: resets ? .passwordReset : .verifyEmail,
            provider: "password", actor: .user, requestID: requestID)
        // A never-verified account loses its other identities and so its sessions too (the squatter's).
        let removesIdentities = current.map { !$0.emailVerified && !$0.identities.isEmpty } ?? false
        let endsSessions = resets || removesIdentities
        // Sessions beyond the broker's go whenever the broker's do, as in a takeover.
        let jobs = endsSessions ? revocationJobs(for: record.uid, at: now) : []
        let options = AccountWriteOptions(
            consuming: SingleUseMark(key: "oob:" + hash, expiresAt: record.expiresAt), revokeSessions: endsSessions,
            recording: [event], enqueuing: jobs, cutsOffCustomTokens: endsSessions,
            // A never-verified account's factors are a squatter's (contract section 14).
            removesSecondFactors: current.map { !$0.emailVerified } ?? false)
        let (newHash, verifiedHash, needsNoProof) = (passwordHash, provenHash, unguarded)
        let updated: Account
        do {
            updated = try await accounts.update(id: record.uid, options: options) { account in
                guard account.email?.lowercased() == record.emailKey else {
                    throw ActionCodeError(.invalidCode, "the account's email changed")
                }
                if let verifiedHash, account.password?.hash != verifiedHash {
                    throw AccountError(.invalidLoginCredentials)
                }
                if needsNoProof, Self.verificationNeedsPassword(account) {
                    throw AccountError(.invalidLoginCredentials)
                }
                if !account.emailVerified { account.identities = [] }
                account.emailVerified = true
                if let newHash {
                    account.password = .chosen(newHash)
                }
            }
        } catch let error as AccountStoreError where error.code == .alreadyUsed || error.code == .notFound {
            throw ActionCodeError(.invalidCode, "used, or the account is gone")
        }
        doorbell?.ring(jobs)
        return Confirmation(
            account: updated, action: resets ? .resetPassword : record.action, continueURL: record.continueURL,
            jobs: jobs)
    }

    /// The Argon2id hash of a new password that follows ``PasswordPolicy``.
    private func hashNewPassword(_ password: String) async throws -> String {
        try PasswordPolicy.check(email: "user@example.com", password: password)
        return try await passwords.hash(password)
    }

    /// Checks `password` against `account`'s as a password sign-in does (``CountedPasswordCheck``: a failure counts
    /// toward the lockout of `emailKey`; a locked account is refused before any check) and returns the hash it
    /// matched.
    private func verifyPassword(
        _ password: String, of account: Account?, emailKey: String, at now: Date
    ) async throws
        -> String
    {
        let hash = account.flatMap { $0.hasUsablePassword ? $0.password?.hash : nil }
        let matches = try await CountedPasswordCheck(attempts: accounts, passwords: passwords).matches(
            password, against: hash, emailKey: emailKey, at: now)
        guard let hash, matches else { throw AccountError(.invalidLoginCredentials) }
        try await accounts.clearLoginFailures(emailKey: emailKey)
        return hash
    }

    /// Signs in as the holder of `email` with an email sign-in code, once: the account holding the address
    /// (refused when disabled), or a new one (email verified, no password) when none does, as the compatibility contract does (section 11).
    /// The email counts as verified from now on; on an account whose email was never verified the sign-in
    /// also removes its password and identities and ends its sessions (a squatter who signed up with the
    /// address, or linked a provider to it, keeps nothing). `session` is stored with the change, after any
    /// revocation, in the same transaction as the code's single-use mark and the audit event.
    ///
    /// A code for another address is ``ActionCodeError/Code/wrongEmail`` and stays unused.
    /// The account an email sign-in to an address no account holds makes: the address, verified, no password.
    static func newEmailLinkAccount(_ uid: AccountID, email: String, at now: Date) -> Account {
        Account(id: uid, email: email, emailVerified: true, createdAt: now, lastSignInAt: now, origin: .emailLink)
    }

    /// Whether an email sign-in to `account` takes it over: its email was never verified, and someone else may
    /// hold a way in (a password or an identity), which the sign-in removes.
    static func emailSignInTakesOver(_ account: Account) -> Bool {
        !account.emailVerified && (!account.identities.isEmpty || account.password?.hash != nil)
    }

    /// The decide phase of an email sign-in to `rawEmail` with `code` (``SignInMethod/decide(_:_:)``): the account
    /// holding the address and whether the sign-in takes it over, or a new account. Reads only: the code is checked
    /// (and checked again where it is used, in the commit), its single-use mark the decision's, so that a sign-in
    /// held for its second factor spends it when it is held.
    func decideSignIn(email rawEmail: String, code: String) async throws -> SignInDecision {
        let (_, email, mark) = try await signInCode(code, email: rawEmail)
        let credential = SignInCredential(provider: "emailLink", email: email, emailVerified: true)
        guard let existing = try await accounts.account(email: email) else {
            let now = clock.now
            return SignInDecision(
                account: nil, change: .created, credential: credential,
                newAccount: Self.newEmailLinkAccount(AccountID.generate(), email: email, at: now))
        }
        guard !existing.disabled else { throw AccountError(.userDisabled) }
        var decision = SignInDecision(
            account: existing, change: Self.emailSignInTakesOver(existing) ? .tookOver : .none, credential: credential)
        decision.singleUse = mark
        return decision
    }

    public func signIn(
        email rawEmail: String, code: String, session: SessionGrant?, requestID: String
    )
        async throws -> EmailSignIn
    {
        let (record, email, mark) = try await signInCode(code, email: rawEmail)
        let now = clock.now
        do {
            if let existing = try await accounts.account(email: email) {
                guard !existing.disabled else { throw AccountError(.userDisabled) }
                let takesOver = Self.emailSignInTakesOver(existing)
                let jobs = takesOver ? revocationJobs(for: existing.id, at: now) : []
                let event = AuditEvent(
                    time: now, uid: existing.id, action: .signIn, provider: "emailLink", actor: .user,
                    outcome: takesOver ? "take_over" : "success", requestID: requestID)
                let options = AccountWriteOptions(
                    consuming: mark, revokeSessions: takesOver, issuing: session, recording: [event], enqueuing: jobs,
                    cutsOffCustomTokens: takesOver, removesSecondFactors: takesOver)
                let updated = try await accounts.update(id: existing.id, options: options) { account in
                    guard account.email?.lowercased() == record.emailKey else {
                        throw ActionCodeError(.invalidCode, "the account's email changed")
                    }
                    guard !account.disabled else { throw AccountError(.userDisabled) }
                    if !account.emailVerified {
                        account.identities = []
                        account.password = nil
                    }
                    account.emailVerified = true
                    account.lastSignInAt = now
                }
                return EmailSignIn(account: updated, change: takesOver ? .tookOver : .none, jobs: jobs)
            }
            // The uid the code named, unless an account took it meanwhile (its email changed since).
            let uid = try await accounts.account(id: record.uid) == nil ? record.uid : AccountID.generate()
            let account = Self.newEmailLinkAccount(uid, email: email, at: now)
            let event = AuditEvent(
                time: now, uid: uid, action: .signUp, provider: "emailLink", actor: .user, outcome: "created",
                requestID: requestID)
            try await accounts.create(
                account, options: AccountWriteOptions(consuming: mark, issuing: session, recording: [event]))
            return EmailSignIn(account: account, change: .created, jobs: [])
        } catch let error as AccountStoreError where error.code == .alreadyUsed || error.code == .notFound {
            throw ActionCodeError(.invalidCode, "used, or the account is gone")
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw ActionCodeError(.invalidCode, "a concurrent sign-up took the address; the code is unused")
        }
    }

    /// Upgrades guest `id` in place with an email sign-in code for `rawEmail` (contract section 13): the code is
    /// used, the address becomes the account's, verified, and the account stops being a guest, in one transaction
    /// with `session` and the `link` event (provider `emailLink`). An address another account holds, verified or
    /// not, is ``AccountError/Code/emailExists`` (a guest's upgrade never takes an account over), with the code
    /// unused; an account that is no guest (another upgrade won) is ``Refusal/notAGuest``.
    public func upgradeGuest(
        _ id: AccountID, email rawEmail: String, code: String, session: SessionGrant, requestID: String
    ) async throws -> Account {
        try await spend(code, email: rawEmail, on: id, session: session, requestID: requestID) { account, email in
            try GuestService.admitUpgrade(account)
            account.email = email
            account.isAnonymous = false
        }
    }

    /// Links an email sign-in code for `rawEmail` to the signed-in account `id` that is no guest: the code is used
    /// and the address, proven by it, is the account's, verified, in one transaction with `session` and the `link`
    /// event (provider `emailLink`). The address must be the account's own, or the account must have none: another
    /// one is ``ActionCodeError/Code/otherAddress`` (changing an address is the email change's, which tells the old
    /// address); an address another account holds is ``AccountError/Code/emailExists``; the code stays unused on
    /// every refusal.
    public func linkEmail(
        _ id: AccountID, email rawEmail: String, code: String, session: SessionGrant, requestID: String
    ) async throws -> Account {
        try await spend(code, email: rawEmail, on: id, session: session, requestID: requestID) { account, email in
            guard !account.disabled else { throw AccountError(.userDisabled) }
            if let current = account.email, current.lowercased() != email.lowercased() {
                throw ActionCodeError(.otherAddress)
            }
            account.email = account.email ?? email
        }
    }

    /// Spends the email sign-in code for `rawEmail` on account `id`: `admit` checks the account and sets its
    /// address, then the address is verified and the account signed in, in one transaction with `session` and the
    /// `link` event (provider `emailLink`). An address another account holds is ``AccountError/Code/emailExists``;
    /// the code stays unused on every refusal.
    private func spend(
        _ code: String, email rawEmail: String, on id: AccountID, session: SessionGrant, requestID: String,
        admit: @escaping @Sendable (inout Account, String) throws -> Void
    ) async throws -> Account {
        let (_, email, mark) = try await signInCode(code, email: rawEmail)
        if let holder = try await accounts.account(email: email), holder.id != id { throw AccountError(.emailExists) }
        let now = clock.now
        let event = AuditEvent(
            time: now, uid: id, action: .link, provider: "emailLink", actor: .user, requestID: requestID)
        let options = AccountWriteOptions(consuming: mark, issuing: session, recording: [event])
        do {
            return try await accounts.update(id: id, options: options) { account in
                try admit(&account, email)
                account.emailVerified = true
                account.lastSignInAt = now
            }
        } catch let error as AccountStoreError where error.code == .alreadyUsed {
            throw ActionCodeError(.invalidCode, "used")
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw AccountError(.emailExists)  // taken meanwhile
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        }
    }

    /// An unused, unexpired email sign-in code for `rawEmail`: its record, the address as given (trimmed), and the
    /// single-use mark that spends it.
    private func signInCode(
        _ code: String, email rawEmail: String
    ) async throws -> (record: OOBCodeRecord, email: String, mark: SingleUseMark) {
        let (record, hash) = try await validRecord(code)
        guard record.action == .signIn else { throw ActionCodeError(.invalidCode, "not an email sign-in code") }
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        guard PasswordPolicy.isValidEmail(email) else { throw AccountError(.invalidEmail) }
        guard email.lowercased() == record.emailKey else { throw ActionCodeError(.wrongEmail) }
        return (record, email, SingleUseMark(key: "oob:" + hash, expiresAt: record.expiresAt))
    }

    /// The stored record of an unused, unexpired code, and its hash.
    func validRecord(_ code: String) async throws -> (OOBCodeRecord, String) {
        guard !code.isEmpty, code.utf8.count <= 128, Base64URL.decode(code) != nil else {
            throw ActionCodeError(.invalidCode, "malformed")
        }
        let hash = EmailActionService.hash(code)
        guard let record = try await codes.oobCode(hash: hash) else { throw ActionCodeError(.invalidCode, "unknown") }
        let now = clock.now
        guard now < record.expiresAt else { throw ActionCodeError(.expiredCode) }
        guard try await !codes.isOOBCodeUsed(hash: hash, at: now) else { throw ActionCodeError(.invalidCode, "used") }
        return (record, hash)
    }

    /// The jobs that end `uid`'s sessions beyond the broker's (with a service account).
    func revocationJobs(for uid: AccountID, at now: Date) -> [OutboxJob] {
        revocation.jobs(for: uid, at: now)
    }

    /// Refuses a `continueUrl` that is not an absolute URL with a host (or is longer than 2,048 bytes).
    static func checkContinueURL(_ url: String) throws {
        guard url.utf8.count <= 2048, MailSettings.continuePrefix(url) != nil else {
            throw ActionCodeError(.invalidContinueURL)
        }
    }
}

extension AccountOrigin {
    /// Made by the first email-link sign-in of its address.
    public static let emailLink = AccountOrigin(rawValue: "emailLink")
}
