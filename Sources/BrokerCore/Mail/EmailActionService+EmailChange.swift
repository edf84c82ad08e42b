import BrokerCrypto
public import BrokerModel
import BrokerStorage
import Foundation

extension EmailActionService {
    /// Queues the mail of an email change (contract section 9): a `verifyAndChangeEmail` link to `rawNewEmail`,
    /// which changes nothing until it is confirmed. The caller checked the sign-in's age. A guest (no address to
    /// change: its upgrade sets one) is ``RequestError/Code/invalidRequest``; an address that is not one
    /// ``AccountError/Code/invalidEmail``; the account's own address ``RequestError/Code/invalidRequest``; an
    /// address another account holds ``AccountError/Code/emailExists``, counted and stored nothing; a sixth mail to
    /// the address within the hour ``AccountError/Code/tooManyAttempts``. The code is bound to the account's address
    /// as it is now: once that changes, the link stops working. Returns the jobs queued.
    @discardableResult
    public func requestEmailChange(
        for account: Account, to rawNewEmail: String, continueURL: String?, acceptLanguage: String?,
        requestID: String
    ) async throws -> [OutboxJob] {
        guard !account.isAnonymous else {
            throw RequestError.invalidRequest("A guest has no email address to change; upgrade the account instead.")
        }
        let newEmail = rawNewEmail.trimmingCharacters(in: .whitespaces)
        guard PasswordPolicy.isValidEmail(newEmail) else { throw AccountError(.invalidEmail) }
        let newKey = newEmail.lowercased()
        guard newKey != account.email?.lowercased() else {
            throw RequestError.invalidRequest("newEmail is the account's email address already.")
        }
        if let continueURL, !settings.allowsContinueURL(continueURL) {
            throw RequestError.invalidRequest("continueUrl is not allowed (mail.allowedContinueUrls).")
        }
        if let holder = try await accounts.account(email: newEmail), holder.id != account.id {
            throw AccountError(.emailExists)
        }
        let now = clock.now
        let secret = Base64URL.encode(SecureRandom.bytes(32))
        let code = OOBCodeRecord(
            codeHash: Self.hash(secret), action: .verifyAndChangeEmail, uid: account.id,
            emailKey: account.email?.lowercased() ?? "", continueURL: continueURL, createdAt: now,
            expiresAt: now + Self.codeLifetime, targetEmail: newEmail)
        let job = try composer.job(
            .verifyAndChangeEmail, to: newEmail, uid: account.id, code: secret, continueURL: continueURL,
            acceptLanguage: acceptLanguage, at: now)
        let event = AuditEvent(
            time: now, uid: account.id, action: .mailQueued, provider: MailAction.verifyAndChangeEmail.rawValue,
            actor: .user, outcome: "success", requestID: requestID)
        let accepted = try await codes.requestMail(
            emailKey: newKey, at: now, limit: Self.mailsPerHour, window: 3600, code: code, mail: job,
            recording: [event])
        guard accepted else { throw AccountError(.tooManyAttempts, retryAfter: 3600) }
        doorbell?.ring([job])
        return [job]
    }
}
