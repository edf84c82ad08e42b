public import BrokerIdentity
public import BrokerModel
package import BrokerStorage
import Foundation

/// The broker's ``ProviderLifecycle``: applies contract section 10's rules when a provider says one of its users
/// left the app, is gone, or had their email forwarding changed. Each event is one store transaction (its audit
/// events and outbox jobs inside it) and makes no outbound call, so a webhook answers at once.
///
/// - The user left (``ProviderAccountEvent/consentRevoked(provider:subject:)``): every session of the account is
///   revoked (exactly, with the revocation of the sessions beyond the broker's queued when a service account is configured), the provider's
///   stored token is dropped and, when that provider was the account's only way in, ``UnlinkPolicy`` applies:
///   `disable` (the link is kept and the account marked as disabled by that provider, whose next sign-in enables it
///   again; an administrator's disable stays) or `delete` (through ``AccountDeletion``, without asking that provider
///   to revoke or unlink what it already ended).
/// - The provider account is gone (``ProviderAccountEvent/accountDeleted(provider:subject:)``): the identity is
///   unlinked, and the account deleted when it was its only way in.
/// - Email forwarding (``ProviderAccountEvent/emailForwarding(provider:subject:enabled:email:)``): the identity's
///   stored email is cleared while forwarding is off and set again (to the address the provider names) when it is
///   on. The account's own email and its verification are left alone.
///
/// An unknown subject changes nothing and is no error. An event carrying a ``SingleUseMark`` that was used before
/// changes nothing either (a replay, on this instance or another sharing the store).
public struct AccountLifecycle: ProviderLifecycle {
    let store: any AccountStore
    let clock: any Clock
    let policy: UnlinkPolicy
    let deletion: AccountDeletion

    /// Creates the lifecycle over `store`; `deletion` says what a deletion queues (and whether ending sessions
    /// also ends the uid's sessions beyond the broker's).
    package init(store: any AccountStore, clock: any Clock, policy: UnlinkPolicy, deletion: AccountDeletion) {
        self.store = store
        self.clock = clock
        self.policy = policy
        self.deletion = deletion
    }

    /// Applies `event` (no replay protection beyond what the event itself implies).
    public func handle(_ event: ProviderAccountEvent, requestID: String) async throws {
        try await handle(event, requestID: requestID, once: nil)
    }

    /// Applies `event`, at most once for `mark`.
    public func handle(_ event: ProviderAccountEvent, requestID: String, once mark: SingleUseMark?) async throws {
        do {
            // A lost race (the account changed between the look-up and the transaction) is decided again.
            for _ in 0..<4 {
                let done: Bool
                switch event {
                case .consentRevoked(let provider, let subject):
                    done = try await userLeft(provider, subject, mark: mark, requestID: requestID)
                case .accountDeleted(let provider, let subject):
                    done = try await accountGone(provider, subject, mark: mark, requestID: requestID)
                case .emailForwarding(let provider, let subject, let enabled, let email):
                    done = try await emailForwarding(
                        provider, subject, enabled: enabled, email: email, mark: mark, requestID: requestID)
                }
                if done { return }
            }
            throw AccountStoreError(.unavailable, "kept losing races")
        } catch let error as AccountStoreError where error.code == .alreadyUsed {
            return
        }
    }

    /// Whether `provider` is the only way in to `account`: no usable password, no identity of another provider.
    static func isOnlyWayIn(_ provider: ProviderID, to account: Account) -> Bool {
        !account.hasUsablePassword && account.identities.allSatisfy { $0.provider == provider }
    }

    /// An audit event of this lifecycle (actor `system`: the provider said so).
    func event(_ action: AuditAction, _ provider: ProviderID, uid: AccountID?, requestID: String) -> AuditEvent {
        AuditEvent(time: clock.now, uid: uid, action: action, provider: provider.rawValue, actor: .system, requestID: requestID)
    }

    /// The user stopped using `provider` with the app. False when the account changed meanwhile (decide again).
    func userLeft(_ provider: ProviderID, _ subject: String, mark: SingleUseMark?, requestID: String) async throws -> Bool {
        guard let account = try await store.account(provider: provider, subject: subject) else {
            return try await nothingLinked(mark)
        }
        if policy == .delete, Self.isOnlyWayIn(provider, to: account) {
            return try await delete(
                account.id, leaving: provider, subject, mark: mark, requestID: requestID,
                recording: [
                    event(.consentRevoked, provider, uid: account.id, requestID: requestID),
                    event(.delete, provider, uid: account.id, requestID: requestID),
                ])
        }
        let now = clock.now
        let policy = policy
        let disabling = policy == .disable && Self.isOnlyWayIn(provider, to: account) && !account.disabled
        var recording = [
            event(.consentRevoked, provider, uid: account.id, requestID: requestID),
            event(.revokeSessions, provider, uid: account.id, requestID: requestID),
        ]
        if disabling { recording.append(event(.disable, provider, uid: account.id, requestID: requestID)) }
        let options = AccountWriteOptions(
            consuming: mark, revokeSessions: true, recording: recording,
            enqueuing: deletion.revocation.jobs(for: account.id, at: now))
        do {
            let updated = try await store.update(linkedTo: provider, subject: subject, options: options) { stored in
                // The premises of the events recorded must still hold inside the transaction.
                guard stored.id == account.id, Self.isOnlyWayIn(provider, to: stored) == Self.isOnlyWayIn(provider, to: account),
                    stored.disabled == account.disabled
                else { throw AccountChanged() }
                for index in stored.identities.indices where stored.identities[index].provider == provider {
                    stored.identities[index].providerToken = nil
                }
                if disabling {
                    stored.disabled = true
                    stored.disabledBy = provider
                }
            }
            // Nil: unlinked meanwhile; nothing is left to do but remember the event.
            return updated == nil ? try await nothingLinked(mark) : true
        } catch is AccountChanged {
            return false
        }
    }

    /// The provider account is gone: unlink it, or delete the account it was the only way in to.
    func accountGone(_ provider: ProviderID, _ subject: String, mark: SingleUseMark?, requestID: String) async throws -> Bool {
        guard let account = try await store.account(provider: provider, subject: subject) else {
            return try await nothingLinked(mark)
        }
        if Self.isOnlyWayIn(provider, to: account) {
            return try await delete(
                account.id, leaving: provider, subject, mark: mark, requestID: requestID,
                recording: [
                    event(.providerAccountDeleted, provider, uid: account.id, requestID: requestID),
                    event(.delete, provider, uid: account.id, requestID: requestID),
                ])
        }
        let options = AccountWriteOptions(
            consuming: mark,
            recording: [
                event(.providerAccountDeleted, provider, uid: account.id, requestID: requestID),
                event(.unlink, provider, uid: account.id, requestID: requestID),
            ])
        do {
            let updated = try await store.update(linkedTo: provider, subject: subject, options: options) { stored in
                guard stored.id == account.id, !Self.isOnlyWayIn(provider, to: stored) else { throw AccountChanged() }
                stored.identities.removeAll { $0.provider == provider && $0.subject == subject }
            }
            return updated == nil ? try await nothingLinked(mark) : true
        } catch is AccountChanged {
            return false
        }
    }

    /// The provider stopped (or started again) forwarding mail to the identity's email.
    func emailForwarding(
        _ provider: ProviderID, _ subject: String, enabled: Bool, email: String?, mark: SingleUseMark?, requestID: String
    ) async throws -> Bool {
        let options = AccountWriteOptions(
            consuming: mark, recording: [event(enabled ? .emailEnabled : .emailDisabled, provider, uid: nil, requestID: requestID)])
        let updated = try await store.update(linkedTo: provider, subject: subject, options: options) { stored in
            for index in stored.identities.indices
            where stored.identities[index].provider == provider && stored.identities[index].subject == subject {
                if !enabled {
                    stored.identities[index].email = nil
                } else if let email {
                    stored.identities[index].email = email
                }
            }
        }
        return updated == nil ? try await nothingLinked(mark) : true
    }

    /// Deletes `uid` when `provider` is still its only way in, recording `recording` and queuing what
    /// ``AccountDeletion`` asks of the account's other parties, but nothing of `provider` (its user already left).
    /// False when the account changed meanwhile; true when it is gone.
    func delete(
        _ uid: AccountID, leaving provider: ProviderID, _ subject: String, mark: SingleUseMark?, requestID: String,
        recording: [AuditEvent]
    ) async throws -> Bool {
        let now = clock.now
        let deletion = deletion
        do {
            try await store.delete(id: uid, options: AccountWriteOptions(consuming: mark, recording: recording)) { stored in
                guard Self.isOnlyWayIn(provider, to: stored),
                    stored.identities.contains(where: { $0.provider == provider && $0.subject == subject })
                else { throw AccountChanged() }
                var others = stored
                others.identities.removeAll { $0.provider == provider }
                return try deletion.jobs(for: others, at: now)
            }
            return true
        } catch is AccountChanged {
            return false
        } catch let error as AccountStoreError where error.code == .notFound {
            return try await nothingLinked(mark)
        }
    }

    /// The event found no account to change: remember its mark all the same, so a replay after the identity signs
    /// up again changes nothing. True: the event is done.
    func nothingLinked(_ mark: SingleUseMark?) async throws -> Bool {
        if let mark { try await store.consume(mark) }
        return true
    }
}

/// Thrown inside a lifecycle transaction whose premises no longer hold: nothing is written and the event is
/// decided again on fresh state.
struct AccountChanged: Error {}
