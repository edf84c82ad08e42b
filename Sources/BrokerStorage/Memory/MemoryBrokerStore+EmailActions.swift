public import BrokerModel
public import Foundation

/// The email flows' codes and per-address mail counts in memory, as ``SQLBrokerStore`` keeps them.
extension MemoryBrokerStore {
    /// Counts, checks and stores at once; see ``EmailActionStore``.
    public func requestMail(
        emailKey: String, at now: Date, limit: Int, window: TimeInterval, code: OOBCodeRecord?, mail: OutboxJob?,
        recording events: [AuditEvent], rehearsing: Bool
    ) throws -> Bool {
        let since = now - window
        let recent = (mailRequestLog[emailKey] ?? []).filter { $0 > since }
        mailRequestLog[emailKey] = recent
        guard recent.count < limit else { return false }
        if let mail { try checkCanEnqueue([mail]) }
        if let code, oobCodes[code.codeHash] != nil { throw AccountStoreError(.alreadyExists, "oob code") }
        mailRequestLog[emailKey, default: []].append(now)
        // In memory a write costs nothing worth rehearsing: a rehearsal keeps nothing.
        if !rehearsing {
            if let code { insert(code) }
            if let mail { storeOutboxJob(mail) }
        }
        for event in events { appendAuditEvent(event) }
        return true
    }

    /// The record of the code with this hash.
    public func oobCode(hash: String) -> OOBCodeRecord? { oobCodes[hash] }

    /// Stores a code without counting a mail request.
    public func storeOOBCode(_ code: OOBCodeRecord, recording events: [AuditEvent]) throws {
        guard oobCodes[code.codeHash] == nil else { throw AccountStoreError(.alreadyExists, "oob code") }
        insert(code)
        for event in events { appendAuditEvent(event) }
    }

    /// Whether the code's single-use mark is recorded and not expired.
    public func isOOBCodeUsed(hash: String, at now: Date) -> Bool {
        guard let expiry = marks["oob:" + hash] else { return false }
        return expiry >= Self.storedMillisecond(now)
    }

    /// Stores `code`; a reset code replaces the account's earlier ones (only the newest reset link works).
    func insert(_ code: OOBCodeRecord) {
        if code.action == .resetPassword { retireResetCodes(of: code.uid) }
        var code = code
        code.createdAt = Self.storedMillisecond(code.createdAt)
        code.expiresAt = Self.storedMillisecond(code.expiresAt)
        oobCodes[code.codeHash] = code
    }

    /// Forgets the account's reset codes (its password changed, or a newer code replaces them).
    func retireResetCodes(of uid: AccountID) {
        oobCodes = oobCodes.filter { $0.value.uid != uid || $0.value.action != .resetPassword }
    }

    private static func storedMillisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
