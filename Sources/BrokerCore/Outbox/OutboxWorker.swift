import BrokerCrypto
import BrokerIdentity
public import BrokerModel
package import BrokerStorage
import Foundation

/// Delivers the outbox: claims due jobs under a lease, hands each to the handler of its kind, and writes the
/// outcome in one write (delivered, retried with backoff, refused for good, or given up).
///
/// Timing (contract section 9): ``jobsCommitted(_:)`` wakes the worker after a commit in this process, so a
/// job's first attempt follows within a pass; a poll every ``OutboxSettings/pollInterval`` finds other
/// instances' jobs, retries that fell due and jobs left by a restart. A failure is retried after 1 s,
/// doubling up to ``OutboxSettings/maxRetryInterval``; a job still undelivered ``OutboxSettings/giveUpAfter``
/// after it was queued is given up. Giving up and refusals are audited. The injected clock decides what is
/// due, so tests step time instead of sleeping.
public actor OutboxWorker {
    private let store: any OutboxStore
    private let settings: OutboxSettings
    private let clock: any Clock
    private let cipher: OutboxCipher?
    private let metrics: Metrics?
    private let logger: Logger
    private var handlers: [OutboxKind: any OutboxHandling] = [:]
    private let signal = WakeSignal()
    private var stopping = false

    /// Creates a worker; nothing runs until ``run()`` or ``runOnce()``.
    package init(
        store: any OutboxStore, settings: OutboxSettings = OutboxSettings(), clock: any Clock = SystemClock(),
        cipher: OutboxCipher? = nil, metrics: Metrics? = nil, logger: Logger = .disabled
    ) {
        self.store = store
        self.settings = settings
        self.clock = clock
        self.cipher = cipher
        self.metrics = metrics
        self.logger = logger.with(["component": "outbox"])
    }

    /// Routes jobs of `kind` to `handler` (replacing an earlier one).
    public func register(_ kind: OutboxKind, _ handler: any OutboxHandling) {
        handlers[kind] = handler
    }

    /// Counts `jobs` as queued and wakes the worker: call it after the write that queued them committed.
    public nonisolated func jobsCommitted(_ jobs: [OutboxJob]) {
        for job in jobs { metrics?.increment("broker_outbox_queued_total", labels: ["kind": job.kind.rawValue]) }
        signal.fire()
    }

    /// Wakes the worker for a pass now.
    public nonisolated func wake() { signal.fire() }

    /// Runs passes until ``stop()`` (or the task is cancelled): one pass, then a wait for a wake-up or the poll
    /// interval. Storage failures are logged and retried on the next pass.
    public func run() async {
        while !stopping && !Task.isCancelled {
            var handled = 0
            do {
                handled = try await runOnce()
            } catch {
                logger.warning("outbox pass failed", metadata: ["error": "\(error)"])
            }
            // A full batch means more may be due: go on without waiting.
            if handled < settings.batchSize { await signal.wait(upTo: settings.pollInterval) }
        }
    }

    /// Makes ``run()`` return after its current pass.
    public func stop() {
        stopping = true
        signal.fire()
    }

    /// One pass: claims the due jobs (up to the batch size), delivers them concurrently and records each
    /// outcome; returns how many were claimed. Updates the pending gauges.
    @discardableResult
    public func runOnce() async throws -> Int {
        let now = clock.now
        let claims = try await store.claimDueJobs(
            now: now, limit: settings.batchSize, leaseToken: Hex.encode(SecureRandom.bytes(16)),
            leaseDuration: settings.leaseDuration)
        await withTaskGroup(of: Void.self) { group in
            for claim in claims {
                let handler = handlers[claim.job.kind]
                group.addTask { await self.process(claim, handler: handler) }
            }
        }
        await updateGauges()
        return claims.count
    }

    /// Delivers one claimed job and records how it ended.
    private func process(_ claim: OutboxClaim, handler: (any OutboxHandling)?) async {
        let job = claim.job
        let kind = job.kind.rawValue
        let log = logger.with(["job": job.id, "kind": kind, "attempt": String(job.attempts)])
        let deadline = job.createdAt + settings.giveUpAfter
        do {
            guard clock.now < deadline else {
                throw OutboxDeliveryError(.transient, "not attempted: past outbox.giveUpAfterHours")
            }
            guard let handler else { throw OutboxDeliveryError(.transient, "no handler for kind \(kind)") }
            let payload: [UInt8]
            if job.sealed {
                guard let cipher else {
                    throw OutboxDeliveryError(.transient, "the payload is encrypted and no BROKER_ENCRYPTION_KEY is set")
                }
                do {
                    payload = try cipher.opening(job)
                } catch {
                    throw OutboxDeliveryError(.transient, "the payload does not decrypt with BROKER_ENCRYPTION_KEY")
                }
            } else {
                payload = job.payload
            }
            try await handler.deliver(job, payload: payload)
            let event = auditEvent(job, action: .outboxDelivered, outcome: "success")
            try await record(claim, .delivered, [event], log)
            metrics?.increment("broker_outbox_sent_total", labels: ["kind": kind])
            log.info("outbox job delivered")
        } catch let error as OutboxDeliveryError where error.code == .permanent {
            let event = auditEvent(job, action: .outboxRefused, outcome: "refused")
            try? await record(claim, .refused(error: error.detail), [event], log)
            metrics?.increment("broker_outbox_failed_total", labels: ["kind": kind, "result": "refused"])
            log.warning("outbox job refused for good", metadata: ["error": error.detail])
        } catch {
            let detail = (error as? OutboxDeliveryError)?.detail ?? "\(error)"
            let now = clock.now
            let next = now + settings.retryDelay(afterAttempts: job.attempts)
            if next >= deadline {
                let event = auditEvent(job, action: .outboxGivenUp, outcome: "given_up")
                try? await record(claim, .givenUp(error: detail), [event], log)
                metrics?.increment("broker_outbox_failed_total", labels: ["kind": kind, "result": "given_up"])
                log.error("outbox job given up", metadata: ["error": detail])
            } else {
                try? await record(claim, .retry(at: next, error: detail), [], log)
                metrics?.increment("broker_outbox_failed_total", labels: ["kind": kind, "result": "retry"])
                log.warning("outbox attempt failed; retrying", metadata: ["error": detail, "retryAt": next.rfc3339])
            }
        }
    }

    /// Writes the outcome; a lost lease (another worker took the job after the lease ran out) is logged.
    private func record(_ claim: OutboxClaim, _ outcome: OutboxOutcome, _ events: [AuditEvent], _ log: Logger)
        async throws
    {
        do {
            if try await !store.finish(claim, as: outcome, at: clock.now, recording: events) {
                log.warning("outbox lease was lost before the outcome was written")
            }
        } catch {
            log.error("outbox outcome not written", metadata: ["error": "\(error)"])
            throw error
        }
    }

    private func auditEvent(_ job: OutboxJob, action: AuditAction, outcome: String) -> AuditEvent {
        AuditEvent(
            time: clock.now, uid: job.uid, action: action, provider: job.kind.rawValue, actor: .system,
            outcome: outcome, requestID: "outbox")
    }

    private func updateGauges() async {
        guard let metrics, let stats = try? await store.outboxStats() else { return }
        metrics.set("broker_outbox_pending", to: Double(stats.pending))
        let age = stats.oldestPendingCreatedAt.map { max(0, clock.now.timeIntervalSince($0)) } ?? 0
        metrics.set("broker_outbox_oldest_pending_age_seconds", to: age.rounded())
    }
}

/// A wake-up for a sleeping loop: ``fire()`` ends the current ``wait(upTo:)`` at once, or the next one if
/// nobody waits. `@unchecked Sendable`: `waiter`, `fired` and `generation` are guarded by `lock`.
final class WakeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var waiter: CheckedContinuation<Void, Never>?
    private var fired = false
    private var generation = 0

    /// Ends the current wait, or makes the next one return at once.
    func fire() {
        let resumed: CheckedContinuation<Void, Never>? = lock.withLock {
            if let waiter {
                self.waiter = nil
                return waiter
            }
            fired = true
            return nil
        }
        resumed?.resume()
    }

    /// Returns at the next ``fire()`` or after `seconds`, whichever comes first.
    func wait(upTo seconds: TimeInterval) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ticket: Int? = lock.withLock {
                if fired {
                    fired = false
                    return nil
                }
                generation += 1
                waiter = continuation
                return generation
            }
            guard let ticket else { return continuation.resume() }
            let nanoseconds = UInt64(max(0.001, min(seconds, 3600)) * 1_000_000_000)
            Task {
                try? await Task.sleep(nanoseconds: nanoseconds)
                self.timeOut(ticket)
            }
        }
    }

    private func timeOut(_ ticket: Int) {
        let resumed: CheckedContinuation<Void, Never>? = lock.withLock {
            guard generation == ticket, let waiter else { return nil }
            self.waiter = nil
            return waiter
        }
        resumed?.resume()
    }
}
