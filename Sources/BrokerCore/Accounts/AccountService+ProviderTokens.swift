public import BrokerModel
import BrokerStorage
import Foundation

extension AccountService {
    /// Queues `jobs`, the revocation of a token of `provider` that the user of account `id` asked for
    /// (``AuthorizationCodeRevoking``), sealed when a key is configured, with the `provider_token_revoke` audit
    /// event, in one transaction that changes nothing else. A deleted account is ``AccountError/Code/notFound``.
    public func queueProviderTokenRevocation(
        _ id: AccountID, provider: ProviderID, jobs: [OutboxJob], requestID: String
    ) async throws {
        let now = clock.now
        let sealed = try jobs.map { job in try deletion.cipher.map { try $0.sealing(job) } ?? job }
        let event = AuditEvent(
            time: now, uid: id, action: .providerTokenRevoke, provider: provider.rawValue, actor: .user,
            requestID: requestID)
        do {
            _ = try await store.update(id: id, options: AccountWriteOptions(recording: [event], enqueuing: sealed)) {
                _ in
            }
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        }
    }
}
