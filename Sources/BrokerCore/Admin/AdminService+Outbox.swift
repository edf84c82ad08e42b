public import BrokerModel
import BrokerStorage
import Foundation

/// The outbox as administrators see it (`broker admin outbox`, `GET /admin/v1/outbox`): deliveries, the failing
/// ones first among what to look at, and a retry of one.
extension AdminService {
    /// Up to 1,000 jobs, newest first (of `uid`, when given; only failing ones when `failing`), never their payloads.
    public func outboxJobs(uid: AccountID?, failing: Bool) async throws -> [OutboxJob] {
        try await store.outboxJobs(uid: uid, limit: 1000).filter { !failing || $0.isFailing }
    }

    /// Makes the failed job `id` due now (``OutboxStore/retryOutboxJob(id:at:)``) and returns it; `NOT_FOUND` for
    /// no such job, `INVALID_REQUEST` for one that cannot be retried (delivered, being attempted, or a secret one
    /// whose payload is gone).
    public func retryOutboxJob(id: String) async throws -> OutboxJob {
        guard try await store.retryOutboxJob(id: id, at: clock.now) else {
            guard try await store.outboxJob(id: id) != nil else { throw RequestError.notFound }
            throw RequestError.invalidRequest(
                "This job cannot be retried: it was delivered, is being attempted, or its secret payload is gone.")
        }
        guard let job = try await store.outboxJob(id: id) else { throw RequestError.notFound }
        return job
    }
}
