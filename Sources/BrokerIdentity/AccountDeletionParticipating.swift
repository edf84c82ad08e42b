public import BrokerModel
public import Foundation

/// A provider that must be told when an account linked to one of its users is deleted (contract section 10:
/// a token revocation, an unlink). It contributes outbox jobs, queued in the deletion's own
/// transaction and delivered by the handlers it registers (``OutboxHandlerProviding``), so the deletion answers at
/// once whatever the provider's state, and the code that deletes accounts names no provider.
public protocol AccountDeletionParticipating: IdentityProvider {
    /// The jobs deleting `account` asks of this provider for its linked `identity` (none when the provider is
    /// not configured for it). Runs inside the deletion's transaction: no I/O, nothing slow. A job's payload that
    /// holds a secret must be marked ``OutboxJob/secret``; ``AccountDeletion`` seals it.
    func deletionJobs(for identity: Identity, of account: Account, at date: Date) throws -> [OutboxJob]
}

/// A provider whose outbox jobs it delivers itself: the handlers `serve` registers with the ``OutboxWorker``.
public protocol OutboxHandlerProviding: IdentityProvider {
    /// The handlers by job kind (only the kinds this provider's configuration can queue).
    var outboxHandlers: [OutboxKind: any OutboxHandling] { get }
}
