import BrokerCrypto
import BrokerModel
import BrokerStorage
public import Foundation

extension ActionCodeService {
    /// How long the recovery link of an email change works (contract section 9).
    public static let recoveryLifetime: TimeInterval = 72 * 3600

    /// Acts once on an email change's code (contract section 9), in one transaction with the code's single-use
    /// mark and the audit event:
    ///
    /// - `verifyAndChangeEmail`: the new address becomes the account's, verified; every session ends (the confirming
    ///   link is no session; the sessions beyond the broker's go too); and, when the account had an address and mail
    ///   is configured, a `recoverEmail` code (72 hours) and its mail to the old address are stored with the change.
    ///   The code works only while the account's address is the one it replaces.
    /// - `recoverEmail`: the old address is the account's again, verified; every session ends, the broker's and
    ///   beyond, and custom tokens minted until then sign nothing in (whoever changed the address is out).
    ///
    /// The account's identities, password and second factors stay. An address another account holds meanwhile is
    /// ``AccountError/Code/emailExists``, the code unused.
    func confirmEmailChange(
        _ record: OOBCodeRecord, hash: String, acceptLanguage: String?, requestID: String
    ) async throws -> Confirmation {
        guard let target = record.targetEmail else { throw ActionCodeError(.invalidCode, "no address in the code") }
        let changes = record.action == .verifyAndChangeEmail
        if let holder = try await accounts.account(email: target), holder.id != record.uid {
            throw AccountError(.emailExists)
        }
        guard let current = try await accounts.account(id: record.uid) else {
            throw ActionCodeError(.invalidCode, "the account is gone")
        }
        let now = clock.now
        var recovery: [OOBCodeRecord] = []
        var mails: [OutboxJob] = []
        if changes, let old = current.email, let mail {
            let secret = Base64URL.encode(SecureRandom.bytes(32))
            recovery.append(
                OOBCodeRecord(
                    codeHash: EmailActionService.hash(secret), action: .recoverEmail, uid: record.uid,
                    emailKey: old.lowercased(), continueURL: nil, createdAt: now,
                    expiresAt: now + Self.recoveryLifetime, targetEmail: old))
            mails.append(
                try mail.job(
                    .recoverEmail, to: old, uid: record.uid, code: secret, continueURL: nil,
                    acceptLanguage: acceptLanguage, at: now))
        }
        let jobs = revocationJobs(for: record.uid, at: now) + mails
        let event = AuditEvent(
            time: now, uid: record.uid, action: changes ? .emailChange : .emailRecover, provider: "email",
            actor: .user, requestID: requestID)
        let options = AccountWriteOptions(
            consuming: SingleUseMark(key: "oob:" + hash, expiresAt: record.expiresAt), revokeSessions: true,
            recording: [event], enqueuing: jobs, cutsOffCustomTokens: !changes, storingCodes: recovery)
        let updated: Account
        do {
            updated = try await accounts.update(id: record.uid, options: options) { account in
                if changes, (account.email?.lowercased() ?? "") != record.emailKey {
                    throw ActionCodeError(.invalidCode, "the account's email changed")
                }
                account.email = target
                account.emailVerified = true
            }
        } catch let error as AccountStoreError where error.code == .alreadyUsed || error.code == .notFound {
            throw ActionCodeError(.invalidCode, "used, or the account is gone")
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw AccountError(.emailExists)  // taken meanwhile
        }
        doorbell?.ring(jobs)
        return Confirmation(account: updated, action: record.action, continueURL: record.continueURL, jobs: jobs)
    }
}
