import BrokerIdentity
public import BrokerModel
package import BrokerStorage
public import Foundation

/// The read-only views the admin console shows beside the admin API's listings: an account's sessions, sign-ins
/// over time, and the audit log filtered. Shared by the admin API (and so the console, which calls only it).
public struct AdminInsights: Sendable {
    /// A time bucket of the sign-in series.
    public enum Bucket: String, Sendable, CaseIterable {
        /// One minute.
        case minute
        /// One hour.
        case hour
        /// One day (UTC).
        case day

        /// Its length in milliseconds.
        public var milliseconds: Int64 {
            switch self {
            case .minute: 60_000
            case .hour: 3_600_000
            case .day: 86_400_000
            }
        }
    }

    /// The most buckets one series spans.
    public static let maximumBuckets = 1440

    let store: any BrokerStore
    let clock: any Clock

    /// Creates the views over `store`.
    package init(store: any BrokerStore, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    /// The sessions of `uid`, or `notFound`.
    public func sessions(of uid: AccountID) async throws -> SessionSummary {
        guard try await store.account(id: uid) != nil else { throw AccountError(.notFound) }
        return try await store.sessionSummary(accountID: uid, at: clock.now)
    }

    /// Sign-ins per provider and outcome in the last `buckets` buckets of `bucket` (the current one included):
    /// the series' start, its end (exclusive) and the non-zero counts.
    public func signIns(bucket: Bucket, buckets: Int) async throws -> (start: Date, end: Date, counts: [SignInCount]) {
        let size = bucket.milliseconds
        let count = Int64(min(max(buckets, 1), Self.maximumBuckets))
        let endMillis = (clock.now.epochMilliseconds / size + 1) * size
        let startMillis = endMillis - count * size
        let start = Date(timeIntervalSince1970: Double(startMillis) / 1000)
        let end = Date(timeIntervalSince1970: Double(endMillis) / 1000)
        return (start, end, try await store.signInCounts(from: start, to: end, bucketMilliseconds: size))
    }

    /// A page of audit events matching `filter`, newest first, and the cursor of the next page.
    public func audit(_ filter: AuditFilter, cursor: String?, limit: Int) async throws -> ([AuditEvent], String?) {
        let position = try cursor.map { token in
            guard let parsed = PageCursor(token: token) else {
                throw RequestError.invalidRequest("cursor is not valid.")
            }
            return parsed
        }
        let page = try await store.auditEvents(matching: filter, before: position, limit: limit + 1)
        let items = Array(page.prefix(limit))
        return (items, page.count > limit ? items.last.map { PageCursor(at: $0.time, id: $0.id).token } : nil)
    }
}
