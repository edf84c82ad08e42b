public import BrokerModel
public import Foundation

/// The durable outbox: jobs queued with the changes that cause them, claimed under a lease so that two
/// workers (or two broker instances on one database) never both hold a job, and finished in one write.
///
/// Every backend passes the outbox cases of the store conformance suite. Jobs are usually queued by an
/// account write (``AccountWriteOptions/enqueuing``); ``enqueue(_:recording:)`` queues them alone.
public protocol OutboxStore: Sendable {
    /// Stores new pending jobs, and appends `events` to the audit log, in one transaction.
    func enqueue(_ jobs: [OutboxJob], recording events: [AuditEvent]) async throws
    /// Claims up to `limit` pending jobs due at `now` (next attempt at or before `now`) whose lease is free
    /// or ran out, oldest due first: each gets the lease `leaseToken` until `now + leaseDuration`, and its
    /// attempt count goes up by one. A job is held by one lease at a time, however many claim at once.
    func claimDueJobs(now: Date, limit: Int, leaseToken: String, leaseDuration: TimeInterval) async throws
        -> [OutboxClaim]
    /// Ends the claim's attempt as `outcome` at `now`, with `events` appended to the audit log in the same
    /// write; true when the claim still held its lease (otherwise nothing is written). `delivered` deletes a
    /// secret payload.
    func finish(_ claim: OutboxClaim, as outcome: OutboxOutcome, at now: Date, recording events: [AuditEvent])
        async throws -> Bool
    /// Up to `limit` jobs (of `uid`, if given), newest first.
    func outboxJobs(uid: AccountID?, limit: Int) async throws -> [OutboxJob]
    /// The job with this id.
    func outboxJob(id: String) async throws -> OutboxJob?
    /// An administrator's retry of job `id`: a job that failed (refused, given up, or pending between attempts,
    /// not under a lease at `now`) becomes pending, due at `now`, keeping its id and attempts. False, changing
    /// nothing, for a delivered job, one under a lease, a secret one whose payload went when it ended, or none.
    func retryOutboxJob(id: String, at now: Date) async throws -> Bool
    /// The pending count and the oldest pending job's age, for metrics.
    func outboxStats() async throws -> OutboxStats
}

extension OutboxStore {
    /// Stores new pending jobs in one transaction.
    public func enqueue(_ jobs: [OutboxJob]) async throws {
        try await enqueue(jobs, recording: [])
    }
}
