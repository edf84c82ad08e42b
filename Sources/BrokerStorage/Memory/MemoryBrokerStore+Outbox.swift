public import BrokerModel
public import Foundation

/// A job in ``MemoryBrokerStore``'s outbox with the lease that holds it, if any.
struct LeasedOutboxJob: Sendable {
    var job: OutboxJob
    var leaseToken: String?
    var leaseExpiresAt: Date?
}

/// The outbox in memory, with ``SQLBrokerStore``'s semantics (each call runs whole on the actor, so a claim
/// is as atomic as the SQL store's conditional update).
extension MemoryBrokerStore {
    /// Stores the jobs and events; a job id stored before throws `alreadyExists` and stores nothing.
    public func enqueue(_ jobs: [OutboxJob], recording events: [AuditEvent]) throws {
        try checkCanEnqueue(jobs)
        for job in jobs { storeOutboxJob(job) }
        for event in events { appendAuditEvent(event) }
    }

    /// Leases up to `limit` due jobs, oldest due first.
    public func claimDueJobs(now: Date, limit: Int, leaseToken: String, leaseDuration: TimeInterval) -> [OutboxClaim] {
        let now = Self.millisecond(now)
        let expires = Self.millisecond(now + max(1, leaseDuration))
        let due = outbox.values
            .filter { entry in
                entry.job.state == .pending && entry.job.nextAttemptAt <= now
                    && (entry.leaseExpiresAt.map { $0 <= now } ?? true)
            }
            .sorted { ($0.job.nextAttemptAt, $0.job.id) < ($1.job.nextAttemptAt, $1.job.id) }
            .prefix(max(1, min(limit, 1000)))
        return due.map { entry in
            var leased = entry
            leased.job.attempts += 1
            leased.leaseToken = leaseToken
            leased.leaseExpiresAt = expires
            outbox[entry.job.id] = leased
            return OutboxClaim(job: leased.job, leaseToken: leaseToken, leaseExpiresAt: expires)
        }
    }

    /// Ends the claim's attempt; false, changing nothing, once the lease was lost.
    public func finish(_ claim: OutboxClaim, as outcome: OutboxOutcome, at now: Date, recording events: [AuditEvent])
        -> Bool
    {
        guard var entry = outbox[claim.job.id], entry.job.state == .pending, entry.leaseToken == claim.leaseToken
        else { return false }
        let now = Self.millisecond(now)
        entry.leaseToken = nil
        entry.leaseExpiresAt = nil
        switch outcome {
        case .delivered:
            entry.job.state = .delivered
            entry.job.finishedAt = now
            entry.job.lastError = nil
        case .retry(let at, let error):
            entry.job.nextAttemptAt = Self.millisecond(at)
            entry.job.lastError = String(error.prefix(500))
        case .refused(let error):
            entry.job.state = .refused
            entry.job.finishedAt = now
            entry.job.lastError = String(error.prefix(500))
        case .givenUp(let error):
            entry.job.state = .givenUp
            entry.job.finishedAt = now
            entry.job.lastError = String(error.prefix(500))
        }
        if entry.job.state != .pending && entry.job.secret { entry.job.payload = [] }
        outbox[claim.job.id] = entry
        for event in events { appendAuditEvent(event) }
        return true
    }

    /// Up to `limit` jobs (of `uid`, if given), newest first.
    public func outboxJobs(uid: AccountID?, limit: Int) -> [OutboxJob] {
        Array(
            outbox.values.map(\.job)
                .filter { uid == nil || $0.uid == uid }
                .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
                .prefix(max(1, min(limit, 1000))))
    }

    /// The job with this id.
    public func outboxJob(id: String) -> OutboxJob? { outbox[id]?.job }

    /// An administrator's retry of job `id` (``OutboxStore/retryOutboxJob(id:at:)``).
    public func retryOutboxJob(id: String, at now: Date) -> Bool {
        guard var entry = outbox[id] else { return false }
        let now = Self.millisecond(now)
        switch entry.job.state {
        case .pending:
            if let expiry = entry.leaseExpiresAt, expiry > now { return false }
        case .refused, .givenUp:
            guard !entry.job.secret else { return false }
        case .delivered:
            return false
        }
        entry.job.state = .pending
        entry.job.nextAttemptAt = now
        entry.job.finishedAt = nil
        entry.leaseToken = nil
        entry.leaseExpiresAt = nil
        outbox[id] = entry
        return true
    }

    /// The pending count and the oldest pending job's creation.
    public func outboxStats() -> OutboxStats {
        let pending = outbox.values.map(\.job).filter { $0.state == .pending }
        return OutboxStats(pending: pending.count, oldestPendingCreatedAt: pending.map(\.createdAt).min())
    }

    /// Throws `alreadyExists` when a job's id is stored already or listed twice.
    func checkCanEnqueue(_ jobs: [OutboxJob]) throws {
        let ids = jobs.map(\.id)
        guard Set(ids).count == ids.count, !ids.contains(where: { outbox[$0] != nil }) else {
            throw AccountStoreError(.alreadyExists, "outbox job id")
        }
    }

    /// Stores a job as SQL would read it back (dates at whole milliseconds).
    func storeOutboxJob(_ job: OutboxJob) {
        var job = job
        job.createdAt = Self.millisecond(job.createdAt)
        job.nextAttemptAt = Self.millisecond(job.nextAttemptAt)
        job.finishedAt = job.finishedAt.map(Self.millisecond)
        outbox[job.id] = LeasedOutboxJob(job: job)
    }

    private static func millisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
