public import BrokerIdentity
public import BrokerModel
import BrokerStorage
public import Foundation

/// What deleting an account asks of others, as outbox jobs queued in the deletion's transaction: the end of the
/// uid's sessions beyond the broker's (with a service account) and, for each linked identity, what its provider asks
/// (``AccountDeletionParticipating``: a token revocation, an unlink). Shared by `DELETE /v1/me`, the admin
/// API and the CLI, so none of them names a provider.
public struct AccountDeletion: Sendable {
    /// The enabled providers (an identity of a provider no longer enabled asks nothing).
    let providers: ProviderRegistry
    /// What ending the uid's sessions reaches.
    let revocation: SessionRevocation
    /// Seals jobs whose payload holds a secret (`BROKER_ENCRYPTION_KEY`); nil: stored as given.
    let cipher: OutboxCipher?

    /// Creates the deletion rules.
    public init(providers: ProviderRegistry, revocation: SessionRevocation, cipher: OutboxCipher?) {
        self.providers = providers
        self.revocation = revocation
        self.cipher = cipher
    }

    /// Only the revocation of the sessions beyond the broker's (no provider asks anything).
    public init(revocation: SessionRevocation) {
        self.init(providers: ProviderRegistry(providers: []), revocation: revocation, cipher: nil)
    }

    /// The jobs deleting `account` at `date` queues, secret payloads sealed when a key is configured.
    public func jobs(for account: Account, at date: Date) throws -> [OutboxJob] {
        var jobs = revocation.jobs(for: account.id, at: date)
        for identity in account.identities {
            guard let provider = providers.provider(identity.provider) as? any AccountDeletionParticipating else {
                continue
            }
            for var job in try provider.deletionJobs(for: identity, of: account, at: date) {
                job.uid = account.id
                if let cipher { job = try cipher.sealing(job) }
                jobs.append(job)
            }
        }
        return jobs
    }

    /// Deletes `id` from `store` with its jobs, all in one transaction.
    func delete(_ id: AccountID, from store: any AccountStore, at date: Date, recording: [AuditEvent] = []) async throws {
        try await store.delete(id: id, options: AccountWriteOptions(recording: recording)) { account in
            try jobs(for: account, at: date)
        }
    }
}
