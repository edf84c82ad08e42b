public import BrokerModel
import Foundation

/// How a service tells the outbox that a write it made has committed outbox jobs, so the worker tries them at once
/// instead of at its next poll (contract section 9: "tried within a second"). Made with the services, before the
/// worker exists; the worker is connected once it runs (`serve`); until then, and without a worker (the admin CLI,
/// tests without one), a ring is only counted nowhere and the poll finds the jobs.
public final class OutboxDoorbell: @unchecked Sendable {
    // Guarded by `lock`.
    private var worker: OutboxWorker?
    private let lock = NSLock()

    /// A doorbell connected to no worker yet.
    public init() {}

    /// Connects the worker that rings wake from now on.
    public func connect(_ worker: OutboxWorker) { lock.withLock { self.worker = worker } }

    /// Tells the worker that `jobs` were committed (counting them as queued); nothing for no jobs.
    public func ring(_ jobs: [OutboxJob]) {
        guard !jobs.isEmpty, let worker = lock.withLock({ self.worker }) else { return }
        worker.jobsCommitted(jobs)
    }
}
