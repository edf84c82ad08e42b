public import BrokerModel
public import Foundation

/// Where the email flows keep their codes and count the mails asked for per address. A code is used up by
/// the account write that acts on it (a single-use mark, ``AccountWriteOptions/consuming``). Reset codes are bound
/// to the account's password: storing a reset code deletes the account's earlier ones, and an account write that
/// changes its password hash (a reset, a password change, a takeover) deletes them all, in its transaction.
public protocol EmailActionStore: Sendable {
    /// In one transaction: refuses (returning false, storing nothing) when `emailKey` had `limit` mail
    /// requests within `window` before `now`; otherwise counts this request and stores `code`, `mail` and
    /// `events` (each optional: an address no account holds is counted, and gets no code and no mail). With
    /// `rehearsing`, `code` and `mail` are written and removed again in the same transaction, so that a request
    /// for an address without an account costs the writes of one with an account and keeps nothing of them (no
    /// enumeration by timing, contract section 9).
    func requestMail(
        emailKey: String, at now: Date, limit: Int, window: TimeInterval, code: OOBCodeRecord?, mail: OutboxJob?,
        recording events: [AuditEvent], rehearsing: Bool
    ) async throws -> Bool
    /// The record of the code with this hash, used or not, expired or not.
    func oobCode(hash: String) async throws -> OOBCodeRecord?
    /// Stores `code` and `events` in one transaction, without counting a mail request (a link handed to an admin
    /// caller sends no mail). A code hash stored before is `alreadyExists`.
    func storeOOBCode(_ code: OOBCodeRecord, recording events: [AuditEvent]) async throws
    /// Whether the code with this hash was used up (its single-use mark, `oob:<hash>`, is recorded and has
    /// not expired at `now`).
    func isOOBCodeUsed(hash: String, at now: Date) async throws -> Bool
}

extension EmailActionStore {
    /// ``requestMail(emailKey:at:limit:window:code:mail:recording:rehearsing:)``, keeping what it writes.
    public func requestMail(
        emailKey: String, at now: Date, limit: Int, window: TimeInterval, code: OOBCodeRecord?, mail: OutboxJob?,
        recording events: [AuditEvent]
    ) async throws -> Bool {
        try await requestMail(
            emailKey: emailKey, at: now, limit: limit, window: window, code: code, mail: mail, recording: events,
            rehearsing: false)
    }
}
