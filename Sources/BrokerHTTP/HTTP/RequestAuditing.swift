import BrokerCore
import BrokerModel
/// A surface's dependencies that record audit events of the requests they serve.
protocol RequestAuditing {
    /// Records audit events outside a store transaction.
    var auditor: Auditor { get }
}

extension RequestAuditing {
    /// Records an audit event of a request; a failure to record is logged, never turned into a failed request.
    func audit(
        _ action: AuditAction, uid: AccountID?, provider: String? = nil, actor: AuditEvent.Actor = .user,
        outcome: String = "success", context: RequestContext
    ) async {
        await auditor.record(
            action, uid: uid, provider: provider, actor: actor, outcome: outcome, requestID: context.requestID)
    }
}

extension NativeSurface.Dependencies: RequestAuditing {}
extension AdminSurface.Dependencies: RequestAuditing {}
