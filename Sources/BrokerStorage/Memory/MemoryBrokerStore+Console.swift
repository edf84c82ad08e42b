public import BrokerModel
public import Foundation

/// ``ConsoleStore`` in memory, with the SQL store's semantics.
extension MemoryBrokerStore {
    /// Stores a new console session, first deleting the expired ones.
    public func insertConsoleSession(_ record: ConsoleSessionRecord) throws {
        let record = ConsoleSessionRecord(
            tokenHash: record.tokenHash, createdAt: Self.milliseconds(record.createdAt),
            expiresAt: Self.milliseconds(record.expiresAt))
        consoleSessions = consoleSessions.filter { $0.value.expiresAt >= record.createdAt }
        guard consoleSessions[record.tokenHash] == nil else {
            throw AccountStoreError(.alreadyExists, "console session hash")
        }
        consoleSessions[record.tokenHash] = record
    }

    /// How many console sessions are stored (for tests).
    public var consoleSessionCount: Int { consoleSessions.count }

    /// The console session with this hash.
    public func consoleSession(hash: String) -> ConsoleSessionRecord? { consoleSessions[hash] }

    /// Ends the console session with this hash.
    @discardableResult
    public func deleteConsoleSession(hash: String) -> Bool { consoleSessions.removeValue(forKey: hash) != nil }

    /// The refresh-token sessions of `accountID` at `date`.
    public func sessionSummary(accountID: AccountID, at date: Date) -> SessionSummary {
        let own = allRefreshTokens.filter { $0.accountID == accountID }
        let live = Set(own.filter { $0.revokedAt == nil && $0.expiresAt > date }.map(\.sessionID))
        return SessionSummary(live: live.count, lastUsedAt: own.map { max($0.createdAt, $0.usedAt ?? $0.createdAt) }.max())
    }

    /// The `sign_in` audit events from `start` to `end`, counted per bucket, provider and outcome.
    public func signInCounts(from start: Date, to end: Date, bucketMilliseconds: Int64) -> [SignInCount] {
        let bucket = max(1, bucketMilliseconds)
        let (from, to) = (start.epochMilliseconds, end.epochMilliseconds)
        struct Key: Hashable, Comparable {
            var bucket: Int64
            var provider: String
            var outcome: String
            static func < (a: Key, b: Key) -> Bool { (a.bucket, a.provider, a.outcome) < (b.bucket, b.provider, b.outcome) }
        }
        var counts: [Key: Int] = [:]
        for event in auditLog where event.action == .signIn {
            let at = event.time.epochMilliseconds
            guard at >= from, at < to else { continue }
            counts[Key(bucket: at / bucket, provider: event.provider ?? "", outcome: event.outcome), default: 0] += 1
        }
        return counts.keys.sorted().map { key in
            SignInCount(
                start: Date(timeIntervalSince1970: Double(key.bucket * bucket) / 1000), provider: key.provider,
                outcome: key.outcome, count: counts[key] ?? 0)
        }
    }

    /// Up to `limit` events matching `filter` older than `cursor`, newest first.
    public func auditEvents(matching filter: AuditFilter, before cursor: PageCursor?, limit: Int) -> [AuditEvent] {
        auditLog
            .filter { event in
                if let uid = filter.uid, event.uid != uid { return false }
                if let action = filter.action, event.action != action { return false }
                if let provider = filter.provider, event.provider != provider { return false }
                if let outcome = filter.outcome, event.outcome != outcome { return false }
                if let cursor {
                    let key = event.time.epochMilliseconds
                    guard key < cursor.millis || (key == cursor.millis && event.id < cursor.id) else { return false }
                }
                return true
            }
            .sorted { ($0.time.epochMilliseconds, $0.id) > ($1.time.epochMilliseconds, $1.id) }
            .prefix(limit)
            .map { $0 }
    }

    private static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(date.epochMilliseconds) / 1000)
    }
}
