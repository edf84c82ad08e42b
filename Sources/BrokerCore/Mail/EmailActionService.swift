import BrokerCrypto
public import BrokerModel
package import BrokerStorage
public import Foundation

/// The email flows of contract section 9: verification and reset mails (queued through the outbox in the
/// same transaction as their code and the per-address count), and the confirmation that acts on a code.
///
/// Codes are 32 random bytes (base64url, no padding), stored only as SHA-256 hashes, valid for an hour and
/// used up by the account write that acts on them (a single-use mark in the same transaction). At most
/// ``mailsPerHour`` mails per requested address (lower-cased) per hour, verification and reset together,
/// counted whether or not an account holds the address.
public struct EmailActionService: Sendable {
    /// Mails per address per hour.
    public static let mailsPerHour = 5
    /// How long a code works.
    public static let codeLifetime: TimeInterval = 3600

    let accounts: any AccountStore & LoginAttemptStore
    let codes: any EmailActionStore
    let passwords: any PasswordHashing
    let clock: any Clock
    let settings: MailSettings
    let issuer: String
    let revocation: SessionRevocation
    let cipher: OutboxCipher?
    let doorbell: OutboxDoorbell?

    /// Creates the service. `issuer` is the broker's public address (the mails link to its `/auth/action`);
    /// `revocation` (with a service account) queues the job that revokes the uid's sessions beyond the broker's with each reset, and with a verification that
    /// removes a never-verified account's identities (a service account is set).
    package init(
        accounts: any AccountStore & LoginAttemptStore, codes: any EmailActionStore, passwords: any PasswordHashing,
        clock: any Clock, settings: MailSettings, issuer: String, revocation: SessionRevocation, cipher: OutboxCipher?,
        doorbell: OutboxDoorbell? = nil
    ) {
        self.doorbell = doorbell
        self.accounts = accounts
        self.codes = codes
        self.passwords = passwords
        self.clock = clock
        self.settings = settings
        self.issuer = issuer
        self.revocation = revocation
        self.cipher = cipher
    }

    /// What a confirmation did.
    public struct Confirmation: Sendable, Equatable {
        /// The account's email.
        public var email: String
        /// `VERIFY_EMAIL`, `PASSWORD_RESET`, `VERIFY_AND_CHANGE_EMAIL` or `RECOVER_EMAIL`.
        public var action: String
        /// Where the browser may go next (already checked against `mail.allowedContinueUrls`).
        public var continueURL: String?
    }

    /// Queues a verification mail to `account`'s email. Returns the jobs queued (to wake the worker).
    @discardableResult
    public func requestVerification(
        for account: Account, continueURL: String?, acceptLanguage: String?, requestID: String
    ) async throws -> [OutboxJob] {
        guard let email = account.email else { throw RequestError.invalidRequest("The account has no email address.") }
        return try await request(
            .verifyEmail, email: email, account: account, continueURL: continueURL, acceptLanguage: acceptLanguage,
            requestID: requestID)
    }

    /// Queues a reset mail when an account holds `email`; answers the same either way (no enumeration),
    /// and counts the request either way. With `requiringAccount` (a surface that tells unknown addresses apart,
    /// one configured without email enumeration protection) an address no account holds is
    /// ``ActionCodeError/Code/accountNotFound``, counted and stored nothing.
    @discardableResult
    public func requestPasswordReset(
        email rawEmail: String, continueURL: String?, acceptLanguage: String?, requestID: String,
        requiringAccount: Bool = false
    ) async throws -> [OutboxJob] {
        try await request(
            .resetPassword, to: rawEmail, continueURL: continueURL, acceptLanguage: acceptLanguage, requestID: requestID,
            requiringAccount: requiringAccount)
    }

    /// Queues an email sign-in mail to `email`, whether or not an account holds it (the sign-in creates one when
    /// none does); a disabled account's address gets none. Counts toward the per-address limit like the other mails.
    @discardableResult
    public func requestEmailSignIn(
        email rawEmail: String, continueURL: String?, acceptLanguage: String?, requestID: String
    ) async throws -> [OutboxJob] {
        try await request(.signIn, to: rawEmail, continueURL: continueURL, acceptLanguage: acceptLanguage, requestID: requestID)
    }

    /// `action`'s mail to the address `rawEmail` (trimmed, checked), with the account holding it, if any.
    private func request(
        _ action: MailAction, to rawEmail: String, continueURL: String?, acceptLanguage: String?, requestID: String,
        requiringAccount: Bool = false
    ) async throws -> [OutboxJob] {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        guard PasswordPolicy.isValidEmail(email) else { throw AccountError(.invalidEmail) }
        let account = try await accounts.account(email: email)
        if requiringAccount && account == nil { throw ActionCodeError(.accountNotFound) }
        return try await request(
            action, email: email, account: account, continueURL: continueURL, acceptLanguage: acceptLanguage,
            requestID: requestID)
    }

    private func request(
        _ action: MailAction, email: String, account: Account?, continueURL: String?, acceptLanguage: String?,
        requestID: String
    ) async throws -> [OutboxJob] {
        if let continueURL, !settings.allowsContinueURL(continueURL) {
            throw RequestError.invalidRequest("continueUrl is not allowed (mail.allowedContinueUrls).")
        }
        let now = clock.now
        let emailKey = email.lowercased()
        // An email sign-in link goes out also when no account holds the address (the sign-in creates it, as
        // the compatibility contract's does); its code names the uid the new account gets. A guest never gets mail (contract
        // section 13).
        let recipient: (uid: AccountID, email: String)? =
            if let account, !account.disabled, !account.isAnonymous, let accountEmail = account.email {
                (account.id, accountEmail)
            }
            else if action == .signIn && account == nil { (AccountID.generate(), email) } else { nil }
        // The code and the mail are made whether or not they go out, so that an address without an account costs
        // the same work as one with (no enumeration by timing, contract section 9); only the rows differ.
        let uid = recipient?.uid ?? AccountID.generate()
        let secret = Base64URL.encode(SecureRandom.bytes(32))
        let code = OOBCodeRecord(
            codeHash: Self.hash(secret), action: action, uid: uid, emailKey: emailKey, continueURL: continueURL,
            createdAt: now, expiresAt: now + Self.codeLifetime)
        let job = try composer.job(
            action, to: recipient?.email ?? email, uid: account == nil ? nil : uid, code: secret,
            continueURL: continueURL, acceptLanguage: acceptLanguage, at: now)
        // The request is audited either way: a mail queued, or none for an address without an (enabled) account.
        let event = AuditEvent(
            time: now, uid: account?.id, action: .mailQueued, provider: action.rawValue, actor: .user,
            outcome: recipient == nil ? "no_account" : "success", requestID: requestID)
        // Without a recipient the code and the mail are written and removed again in the same transaction: the
        // same writes, nothing kept.
        let accepted = try await codes.requestMail(
            emailKey: emailKey, at: now, limit: Self.mailsPerHour, window: 3600, code: code, mail: job,
            recording: [event], rehearsing: recipient == nil)
        let mail = recipient == nil ? nil : job
        guard accepted else { throw AccountError(.tooManyAttempts, retryAfter: 3600) }
        let jobs = mail.map { [$0] } ?? []
        doorbell?.ring(jobs)
        return jobs
    }

    /// Writes this broker's mails.
    var composer: MailComposer { MailComposer(settings: settings, issuer: issuer, cipher: cipher) }

    /// The page link for a code: `{issuer}/auth/action?mode=…&oobCode=…[&continueUrl=…]`.
    static func link(issuer: String, _ action: MailAction, code: String, continueURL: String?) -> String {
        var components = URLComponents()
        components.queryItems =
            [URLQueryItem(name: "mode", value: action.rawValue), URLQueryItem(name: "oobCode", value: code)]
            + (continueURL.map { [URLQueryItem(name: "continueUrl", value: $0)] } ?? [])
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        return issuer + "/auth/action?" + query
    }

    /// Acts on a code once: a verification marks the email verified; a reset sets the new password (Argon2id),
    /// marks the email verified and retires every session (and queues the revocation of the sessions beyond the broker's). On an account
    /// whose email was never verified, both also remove its other identities, as a takeover does.
    /// A bad, used or expired code, or one whose account's email changed, is 400 `INVALID_OOB_CODE`.
    /// Returns the confirmation and the jobs queued.
    /// `proof` is what the broker's page asked for besides a verification code
    /// (``ActionCodeService/VerificationProof``).
    public func confirm(
        code: String, newPassword: String?, proof: ActionCodeService.VerificationProof = .code, requestID: String,
        acceptLanguage: String? = nil
    ) async throws
        -> (Confirmation, [OutboxJob])
    {
        do {
            let done = try await actionCodes.confirm(
                code: code, newPassword: newPassword, proof: proof, requestID: requestID,
                acceptLanguage: acceptLanguage)
            let action =
                switch done.action {
                case .resetPassword: "PASSWORD_RESET"
                case .verifyAndChangeEmail: "VERIFY_AND_CHANGE_EMAIL"
                case .recoverEmail: "RECOVER_EMAIL"
                case .verifyEmail, .signIn: "VERIFY_EMAIL"
                }
            let confirmation = Confirmation(
                email: done.account.email ?? "", action: action, continueURL: done.continueURL)
            return (confirmation, done.jobs)
        } catch let error as ActionCodeError where error.code == .missingNewPassword {
            throw RequestError.invalidRequest("newPassword is required for a password reset.")
        } catch is ActionCodeError {
            throw ActionCodeError(.invalidCode)
        }
    }

    /// Whether the broker's page must ask for the account's password (or a new one) before it verifies with
    /// `code` (``ActionCodeService/verificationNeedsPassword(code:)``); a bad code is 400 `INVALID_OOB_CODE`.
    public func verificationNeedsPassword(code: String) async throws -> Bool {
        do {
            return try await actionCodes.verificationNeedsPassword(code: code)
        } catch is ActionCodeError {
            throw ActionCodeError(.invalidCode)
        }
    }

    /// The codes service over the same store.
    private var actionCodes: ActionCodeService {
        ActionCodeService(
            accounts: accounts, codes: codes, passwords: passwords, clock: clock, issuer: issuer,
            revocation: revocation, doorbell: doorbell, mail: settings, cipher: cipher)
    }

    /// Lowercase hex SHA-256 of a code.
    static func hash(_ code: String) -> String { Hex.encode(Digest.sha256(Array(code.utf8))) }
}
