public import BrokerModel
import BrokerStorage
import Foundation

extension AccountService {
    /// Sets the signed-in user's password: the account needs an email; the password follows ``PasswordPolicy``.
    /// Every other session of the account ends (and its sessions beyond the broker's, ``SessionRevocation``), and
    /// `session` is stored, in one transaction with the new hash and the `password_change` audit event.
    public func changePassword(
        _ id: AccountID, to password: String, session: SessionGrant, requestID: String?
    ) async throws -> Account {
        guard let current = try await store.account(id: id) else { throw AccountError(.notFound) }
        guard !current.disabled else { throw AccountError(.userDisabled) }
        try PasswordPolicy.check(email: current.email ?? "", password: password)
        let hash = try await passwords.hash(password)
        let now = clock.now
        let events = requestID.map {
            [AuditEvent(time: now, uid: id, action: .passwordChange, provider: "password", actor: .user, requestID: $0)]
        }
        let options = AccountWriteOptions(
            revokeSessions: true, issuing: session, recording: events ?? [], enqueuing: revocationJobs(id, at: now))
        do {
            return try await store.update(id: id, options: options) { account in
                guard !account.disabled else { throw AccountError(.userDisabled) }
                guard account.email != nil else { throw AccountError(.invalidEmail) }
                account.password = .chosen(hash)
            }
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        }
    }
}
