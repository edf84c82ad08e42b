public import BrokerModel
import BrokerStorage
import Foundation

/// A change to the signed-in user's profile: nil leaves a field alone, `.some(nil)` clears it.
public struct ProfileChange: Sendable {
    /// The new display name.
    public var displayName: String??
    /// The new photo URL.
    public var photoURL: String??

    /// Creates a change.
    public init(displayName: String?? = nil, photoURL: String?? = nil) {
        self.displayName = displayName
        self.photoURL = photoURL
    }
}

extension AccountService {
    /// The account `id`, disabled or not; nil when there is none.
    public func account(_ id: AccountID) async throws -> Account? { try await store.account(id: id) }

    /// The account holding `email` (compared as the store compares emails), disabled or not; nil when there is none.
    public func account(email: String) async throws -> Account? { try await store.account(email: email) }

    /// The account `id` for a request authenticated as it: missing is `notFound`, disabled `userDisabled`.
    public func activeAccount(_ id: AccountID) async throws -> Account {
        try active(try await store.account(id: id))
    }

    /// `account` when it exists and is not disabled (``activeAccount(_:)`` for an account already read).
    public func active(_ account: Account?) throws -> Account {
        guard let account else { throw AccountError(.notFound) }
        guard !account.disabled else { throw AccountError(.userDisabled) }
        return account
    }

    /// The user's own change's audit event (`actor` the user), to record in the change's transaction; none without
    /// a request id.
    func selfServiceEvents(_ action: AuditAction, _ id: AccountID, provider: String? = nil, requestID: String?)
        -> [AuditEvent]
    {
        requestID.map {
            [AuditEvent(time: clock.now, uid: id, action: action, provider: provider, actor: .user, requestID: $0)]
        } ?? []
    }

    /// Applies a profile change; a photo URL must follow ``PhotoURL``'s rule (`invalidPhotoURL`, nothing changed).
    /// With `requestID`, its `update` audit event is recorded in the change's transaction.
    public func updateProfile(
        _ id: AccountID, _ change: ProfileChange, requestID: String? = nil
    ) async throws -> Account {
        try check(change)
        let options = AccountWriteOptions(recording: selfServiceEvents(.update, id, requestID: requestID))
        return try await store.update(id: id, options: options) { account in
            guard !account.disabled else { throw AccountError(.userDisabled) }
            if let displayName = change.displayName { account.displayName = displayName }
            if let photoURL = change.photoURL { account.photoURL = photoURL }
        }
    }

    /// Links a verified identity to account `id`. An identity linked to another account, or a second identity
    /// of a provider already linked here, is `identityAlreadyLinked`. With `requestID`, its `link` audit event
    /// is recorded in the change's transaction (and so is its `identity.linked` event); with `session`, the new
    /// session that answers the link is stored in it too.
    public func link(
        _ id: AccountID, _ signIn: VerifiedIdentity, requestID: String? = nil, session: SessionGrant? = nil
    ) async throws -> Account {
        let identity = signIn.identity
        if let holder = try await store.account(provider: identity.provider, subject: identity.subject), holder.id != id {
            throw AccountError(.identityAlreadyLinked)
        }
        let now = clock.now
        let token = signIn.providerToken
        do {
            let events = selfServiceEvents(.link, id, provider: identity.provider.rawValue, requestID: requestID)
            let options = AccountWriteOptions(consuming: signIn.singleUse, issuing: session, recording: events)
            return try await store.update(id: id, options: options) { account in
                guard !account.disabled else { throw AccountError(.userDisabled) }
                if let existing = account.identity(identity.provider) {
                    guard existing.subject == identity.subject else { throw AccountError(.identityAlreadyLinked) }
                    account.keepProviderToken(token, for: identity)  // a newer code replaces the token held
                    return
                }
                account.identities.append(signIn.linkedIdentity(at: now))
            }
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw AccountError(.identityAlreadyLinked)
        } catch let error as AccountStoreError where error.code == .alreadyUsed {
            throw TokenError(.replayed)
        }
    }

    /// Refuses `change` as ``updateProfile(_:_:requestID:)`` would (`invalidPhotoURL`), before anything is written:
    /// a call that makes several changes checks them all first.
    public func check(_ change: ProfileChange) throws {
        if case .some(.some(let photoURL)) = change.photoURL,
            !PhotoURL.isAcceptable(photoURL, allowInsecure: allowInsecurePhotoURLs)
        {
            throw AccountError(.invalidPhotoURL)
        }
    }

    /// Refuses unlinking `providers` from `account` as ``unlink(_:providers:requestID:)`` would, before anything is
    /// written: `notFound` for a provider the account has no identity of, `lastIdentity` when no way in would be
    /// left (`passwordAfter`: a usable password once the call is done, one it sets included).
    public func checkUnlink(_ account: Account, removing providers: Set<ProviderID>, passwordAfter: Bool) async throws {
        var after = account
        try Self.unlink(providers, from: &after, hasPassword: passwordAfter, hasPasskey: try await hasPasskey(account.id))
    }

    /// Whether account `id` has a passkey (a way in an unlink may leave it with).
    private func hasPasskey(_ id: AccountID) async throws -> Bool {
        try await passkeys?.passkeys(uid: id).isEmpty == false
    }

    /// The unlink rule, for a check and for the write alike: removes `providers`' identities from `account`, each of
    /// which it must have (`notFound`), leaving a way in (`lastIdentity`): an identity, a password or a passkey.
    static func unlink(
        _ providers: Set<ProviderID>, from account: inout Account, hasPassword: Bool, hasPasskey: Bool
    ) throws {
        guard providers.allSatisfy({ account.identity($0) != nil }) else { throw AccountError(.notFound) }
        account.identities.removeAll { providers.contains($0.provider) }
        guard !account.identities.isEmpty || hasPassword || hasPasskey else { throw AccountError(.lastIdentity) }
    }

    /// Unlinks every one of `providers` from account `id` in one transaction (all or none), never its last way to
    /// sign in (`lastIdentity`); each unlink audited with `requestID`.
    public func unlink(_ id: AccountID, providers: Set<ProviderID>, requestID: String? = nil) async throws -> Account {
        let events = providers.map(\.rawValue).sorted().flatMap {
            selfServiceEvents(.unlink, id, provider: $0, requestID: requestID)
        }
        let hasPasskey = try await hasPasskey(id)
        return try await store.update(id: id, options: AccountWriteOptions(recording: events)) { account in
            try Self.unlink(providers, from: &account, hasPassword: account.hasUsablePassword, hasPasskey: hasPasskey)
        }
    }

    /// Unlinks `provider` from account `id`, never its last way to sign in (`lastIdentity`: an account needs an
    /// identity, a usable password or a passkey). The admin API's unlink follows the same rule. With `requestID`, its
    /// `unlink` audit event is recorded in the change's transaction.
    public func unlink(_ id: AccountID, provider: ProviderID, requestID: String? = nil) async throws -> Account {
        try await unlink(id, providers: [provider], requestID: requestID)
    }

    /// Deletes account `id` with its identities and sessions, queuing what ``AccountDeletion`` asks in the same
    /// transaction, and with `requestID` its `delete` audit event.
    public func delete(_ id: AccountID, requestID: String? = nil) async throws {
        do {
            try await deletion.delete(
                id, from: store, at: clock.now, recording: selfServiceEvents(.delete, id, requestID: requestID))
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        }
    }
}
