public import BrokerModel
package import BrokerStorage

/// Records audit events outside a store transaction; a failure to record is logged, never turned into a failed
/// request.
public struct Auditor: Sendable {
    let store: any AuditLog
    let clock: any Clock
    let logger: Logger

    /// Creates an auditor.
    package init(store: any AuditLog, clock: any Clock, logger: Logger) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    /// Records one event.
    public func record(
        _ action: AuditAction, uid: AccountID?, provider: String? = nil, actor: AuditEvent.Actor = .user,
        outcome: String = "success", requestID: String
    ) async {
        let event = AuditEvent(
            time: clock.now, uid: uid, action: action, provider: provider, actor: actor, outcome: outcome,
            requestID: requestID)
        do {
            try await store.appendAuditEvent(event)
        } catch {
            logger.with(["requestId": requestID]).error(
                "audit event not recorded", metadata: ["action": action.rawValue, "cause": "\(error)"])
        }
    }
}
