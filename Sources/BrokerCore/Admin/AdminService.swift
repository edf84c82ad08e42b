public import BrokerModel
package import BrokerStorage
import Foundation

/// A change an administrator makes to an account: nil leaves a field alone.
public struct AdminChange: Sendable {
    /// Disable or enable.
    public var disabled: Bool?
    /// New display name (`.some(nil)` clears it).
    public var displayName: String??
    /// Mark the email verified or not.
    public var emailVerified: Bool?
    /// New custom claims, validated JSON text (`.some(nil)` clears them).
    public var customClaims: String??

    /// Creates a change.
    public init(disabled: Bool? = nil, displayName: String?? = nil, emailVerified: Bool? = nil, customClaims: String?? = nil) {
        self.disabled = disabled
        self.displayName = displayName
        self.emailVerified = emailVerified
        self.customClaims = customClaims
    }
}

/// What administrators do, shared by the admin API and the `broker admin` CLI. Every change leaves an audit event
/// with actor `admin`.
public struct AdminService: Sendable {
    /// The default and largest page sizes of listings.
    public static let defaultLimit = 100
    /// The largest page size.
    public static let maximumLimit = 1000

    let store: any BrokerStore
    private let sessions: SessionService
    package let clock: any Clock
    let logger: Logger
    let revocation: SessionRevocation
    let deletion: AccountDeletion
    /// Hashes the passwords administrators set (nil: such calls are refused).
    let passwords: (any PasswordHashing)?
    /// Whether `http` photo URLs are accepted too (`allowInsecureProviderUrls`).
    let allowInsecurePhotoURLs: Bool

    /// Creates the service; `revocation` makes a revocation and a deletion also queue the end of the uid's sessions
    /// beyond the broker's (``SessionRevocation``), in the same transaction; `deletion` (default: that revocation
    /// alone) is what a deletion queues; `passwords` hashes the passwords an administrator sets
    /// (``create(_:requestID:)``).
    package init(
        store: any BrokerStore, sessions: SessionService, clock: any Clock, logger: Logger = .disabled,
        revocation: SessionRevocation = .brokerOnly, deletion: AccountDeletion? = nil,
        passwords: (any PasswordHashing)? = nil,
        allowInsecurePhotoURLs: Bool = false
    ) {
        self.passwords = passwords
        self.allowInsecurePhotoURLs = allowInsecurePhotoURLs
        self.revocation = revocation
        self.deletion = deletion ?? AccountDeletion(revocation: revocation)
        self.store = store
        self.sessions = sessions
        self.clock = clock
        self.logger = logger
    }

    /// A page of accounts and the cursor of the next page (nil on the last).
    public func listUsers(filter: AccountFilter, cursor: String?, limit: Int) async throws -> ([Account], String?) {
        let page = try await store.listAccounts(filter: filter, after: try Self.cursor(cursor), limit: limit + 1)
        return Self.paginate(page, limit: limit) { PageCursor(at: $0.createdAt, id: $0.id.rawValue) }
    }

    /// The client's cursor, or 400 `INVALID_REQUEST` when it is not one of ours.
    private static func cursor(_ token: String?) throws -> PageCursor? {
        try token.map { token in
            guard let parsed = PageCursor(token: token) else {
                throw RequestError.invalidRequest("cursor is not valid.")
            }
            return parsed
        }
    }

    /// The first `limit` of `page` (fetched with one extra), and the next page's cursor when there is one.
    private static func paginate<T>(_ page: [T], limit: Int, cursor: (T) -> PageCursor) -> ([T], String?) {
        let items = Array(page.prefix(limit))
        return (items, page.count > limit ? items.last.map { cursor($0).token } : nil)
    }

    /// The account `uid`, or `notFound`.
    public func user(_ uid: AccountID) async throws -> Account {
        guard let account = try await store.account(id: uid) else { throw AccountError(.notFound) }
        return account
    }

    /// The account the identity is linked to, or `notFound`.
    public func user(provider: ProviderID, subject: String) async throws -> Account {
        guard let account = try await store.account(provider: provider, subject: subject) else {
            throw AccountError(.notFound)
        }
        return account
    }

    /// Applies `change` to `uid`, auditing what it did.
    public func update(_ uid: AccountID, _ change: AdminChange, requestID: String) async throws -> Account {
        let before = try await user(uid)
        // Recorded in the change's transaction, so the events the audit events are (``EventRouting``) go with it.
        var events: [AuditEvent] = []
        if let disabled = change.disabled, disabled != before.disabled {
            events.append(event(uid, disabled ? .disable : .enable, requestID: requestID))
        }
        if change.displayName != nil || change.emailVerified != nil || change.customClaims != nil {
            events.append(event(uid, .update, requestID: requestID))
        }
        let updated: Account
        do {
            updated = try await store.update(id: uid, options: AccountWriteOptions(recording: events)) { account in
                if let disabled = change.disabled {
                    // An administrator's disable (or enable) is theirs: no provider's sign-in undoes it.
                    account.disabled = disabled
                    account.disabledBy = nil
                }
                if let displayName = change.displayName { account.displayName = displayName }
                if let emailVerified = change.emailVerified { account.emailVerified = emailVerified }
                if let claims = change.customClaims { account.customClaims = claims }
            }
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        }
        return updated
    }

    /// Deletes `uid` with its identities and sessions, queuing what ``AccountDeletion`` asks in the same
    /// transaction.
    public func delete(_ uid: AccountID, requestID: String) async throws {
        do {
            try await deletion.delete(
                uid, from: store, at: clock.now, recording: [event(uid, .delete, requestID: requestID)])
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        }
    }

    /// Unlinks `provider` from `uid`; never the account's last way to sign in (`lastIdentity`, unless a usable
    /// password remains): an account left with none could never be signed in to again, and a later sign-in with
    /// its email would meet a 409 naming no provider. To remove the last one, delete the account.
    public func unlink(_ uid: AccountID, provider: ProviderID, requestID: String) async throws -> Account {
        let updated: Account
        let options = AccountWriteOptions(
            recording: [event(uid, .unlink, provider: provider.rawValue, requestID: requestID)])
        do {
            let hasPasskey = try await !store.passkeys(uid: uid).isEmpty
            updated = try await store.update(id: uid, options: options) { account in
                guard account.identity(provider) != nil else { throw AccountError(.notFound) }
                account.identities.removeAll { $0.provider == provider }
                guard !account.identities.isEmpty || account.hasUsablePassword || hasPasskey else {
                    throw AccountError(.lastIdentity)
                }
            }
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        }
        return updated
    }

    /// Revokes every session of `uid`.
    public func revokeSessions(_ uid: AccountID, requestID: String) async throws {
        _ = try await user(uid)
        // One transaction: the broker's sessions end and the revocations elsewhere are queued, or neither.
        let options = AccountWriteOptions(
            revokeSessions: true, recording: [event(uid, .revokeSessions, requestID: requestID)],
            enqueuing: revocationJobs(uid))
        do {
            _ = try await store.update(id: uid, options: options) { _ in }
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.notFound)
        }
    }

    /// The outbox jobs that end `uid`'s sessions beyond the broker's (``SessionRevocation``), now.
    func revocationJobs(_ uid: AccountID) -> [OutboxJob] {
        revocation.jobs(for: uid, at: clock.now)
    }

    /// A custom token (``CustomTokenMinting``) for an existing account, with optional developer claims.
    public func customToken(_ uid: AccountID, claims: JSONValue?, requestID: String) async throws -> String {
        guard (1...128).contains(uid.rawValue.count) else {
            throw RequestError.invalidRequest("uid must be 1 to 128 characters.")
        }
        let account = try await user(uid)
        let validated = try claims.map { try CustomClaims.validated($0) }
        let members = validated.flatMap { JSONValue.parse(Array($0.utf8))?.objectValue }
        guard let token = try sessions.customToken(for: account, claims: members) else {
            throw RequestError.invalidRequest(
                "No service account is configured, so no custom token can be minted.")
        }
        await record(uid, .customToken, requestID: requestID)
        return token
    }

    /// A page of audit events, newest first, and the cursor of the next page.
    public func audit(uid: AccountID?, cursor: String?, limit: Int) async throws -> ([AuditEvent], String?) {
        let page = try await store.auditEvents(uid: uid, before: try Self.cursor(cursor), limit: limit + 1)
        return Self.paginate(page, limit: limit) { PageCursor(at: $0.time, id: $0.id) }
    }

    /// The audit event of an admin action on `uid`, now.
    func event(_ uid: AccountID, _ action: AuditAction, provider: String? = nil, requestID: String) -> AuditEvent {
        AuditEvent(time: clock.now, uid: uid, action: action, provider: provider, actor: .admin, requestID: requestID)
    }

    /// Records an admin action on its own, after it (a change records its event in its transaction instead, with
    /// ``event(_:_:provider:requestID:)``); a failure to record is logged, never turned into a failed action.
    func record(_ uid: AccountID, _ action: AuditAction, provider: String? = nil, requestID: String) async {
        do {
            try await store.appendAuditEvent(event(uid, action, provider: provider, requestID: requestID))
        } catch {
            logger.error(
                "audit event not recorded", metadata: ["action": action.rawValue, "requestId": requestID, "cause": "\(error)"])
        }
    }
}
