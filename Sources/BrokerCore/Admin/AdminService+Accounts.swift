public import BrokerModel
import BrokerStorage
import Foundation

/// An administrator's account operations beyond the admin API's own (create with a chosen uid, a full update,
/// look-ups by any identifier, pages, batches), in the broker's terms: a surface that offers them only translates
/// its wire format to these. Every change is audited with actor `admin`, as the admin API's are; a refused call
/// changes nothing.
extension AdminService {
    /// The longest display name kept.
    public static let maximumDisplayNameLength = 256
    /// The most identifiers one look-up takes.
    public static let maximumLookupIdentifiers = 1000
    /// The most uids one batch deletion takes.
    public static let maximumBatchDelete = 1000

    // MARK: - Create

    /// Creates the account `new` describes: the uid kept when given (`duplicateLocalID` when taken), the email
    /// and phone number unique (`emailExists`, `phoneNumberExists`), the password hashed by the broker's hasher.
    /// Origin `admin`; audited as `create` in the same transaction.
    public func create(_ new: NewAccount, requestID: String) async throws -> Account {
        let uid = try new.uid.map(Self.checkedUID) ?? AccountID.generate()
        if let email = new.email { try Self.checkEmail(email) }
        if let phone = new.phoneNumber { try Self.checkPhoneNumber(phone) }
        if let name = new.displayName { try Self.checkDisplayName(name) }
        if let photo = new.photoURL { try checkPhotoURL(photo) }
        if let password = new.password { try Self.checkPassword(password) }
        let candidate = Account(
            id: uid, email: new.email, emailVerified: new.emailVerified, displayName: new.displayName,
            photoURL: new.photoURL, disabled: new.disabled, createdAt: clock.now, phoneNumber: new.phoneNumber)
        if let conflict = try await conflict(creating: candidate) { throw conflict }
        var account = candidate
        if let password = new.password { account.password = .chosen(try await hash(password)) }
        account.origin = .admin
        let event = AuditEvent(time: account.createdAt, uid: uid, action: .create, actor: .admin, requestID: requestID)
        do {
            try await store.create(account, options: AccountWriteOptions(recording: [event]))
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            // Another writer took the uid, the email or the number meanwhile.
            throw try await conflict(creating: candidate) ?? AccountAdminError(.duplicateLocalID)
        }
        return try await user(uid)
    }

    /// The error creating `account` meets: its uid, email or phone number held already; nil when none is.
    private func conflict(creating account: Account) async throws -> AccountAdminError? {
        if try await store.account(id: account.id) != nil { return AccountAdminError(.duplicateLocalID) }
        return try await conflict(email: account.email, phoneNumber: account.phoneNumber, of: account.id)
    }

    /// `emailExists` or `phoneNumberExists` when another account than `uid` holds `email` or `phoneNumber`.
    private func conflict(email: String?, phoneNumber: String?, of uid: AccountID) async throws -> AccountAdminError? {
        if let email, let owner = try await store.account(email: email), owner.id != uid {
            return AccountAdminError(.emailExists)
        }
        if let phoneNumber, let owner = try await store.account(phoneNumber: phoneNumber), owner.id != uid {
            return AccountAdminError(.phoneNumberExists)
        }
        return nil
    }

    // MARK: - Update

    /// Applies `change` to `uid` (`userNotFound` when absent), in one transaction; a new password or a
    /// `validSince` also revokes the account's sessions (the broker's and those beyond it), and `validSince`
    /// becomes the instant before which ID tokens stop working.
    public func update(_ uid: AccountID, _ change: AccountPatch, requestID: String) async throws -> Account {
        guard try await store.account(id: uid) != nil else { throw AccountAdminError(.userNotFound) }
        if case .some(.some(let email)) = change.email { try Self.checkEmail(email) }
        if case .some(.some(let phone)) = change.phoneNumber { try Self.checkPhoneNumber(phone) }
        if case .some(.some(let name)) = change.displayName { try Self.checkDisplayName(name) }
        if case .some(.some(let photo)) = change.photoURL { try checkPhotoURL(photo) }
        if let password = change.password { try Self.checkPassword(password) }
        let claims = try change.customAttributes.map(Self.validatedClaims)
        let validAfter = try change.validSince.map(Self.checkedValidSince)
        let newEmail = change.email.flatMap { $0 }
        let newPhone = change.phoneNumber.flatMap { $0 }
        if let conflict = try await conflict(email: newEmail, phoneNumber: newPhone, of: uid) { throw conflict }
        var newHash: String?
        if let password = change.password { newHash = try await self.hash(password) }
        let hash = newHash

        let revokes = hash != nil || validAfter != nil
        // A passkey is a way in too (contract section 15), as the user's own unlink counts it.
        let hasPasskey = try await !store.passkeys(uid: uid).isEmpty
        let before: Account
        var updated: Account
        do {
            before = try await user(uid)
            // The audit events (and so the events, ``EventRouting``) go in the change's transaction: those of the
            // change as it applies to the account read just before.
            var expected = before
            try Self.apply(change, hash: hash, claims: claims, hasPasskey: hasPasskey, to: &expected)
            let options = AccountWriteOptions(
                revokeSessions: revokes, recording: events(from: before, to: expected, revoked: revokes, requestID),
                enqueuing: revokes ? revocationJobs(uid) : [])
            updated = try await store.update(id: uid, options: options) { account in
                try Self.apply(change, hash: hash, claims: claims, hasPasskey: hasPasskey, to: &account)
            }
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountAdminError(.userNotFound)
        } catch let error as AccountError where error.code == .notFound {
            throw AccountAdminError(.userNotFound)
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw try await conflict(email: newEmail, phoneNumber: newPhone, of: uid) ?? AccountAdminError(.emailExists)
        }
        // The revocation stamps the current second; `validSince` names its own.
        if let validAfter, updated.tokensValidAfter != validAfter {
            updated = try await store.update(id: uid) { $0.tokensValidAfter = validAfter }
        }
        return updated
    }

    /// `change` applied to `account` inside the update's transaction; `hasPasskey` when the account has a passkey
    /// (a way in that an unlinking leaves).
    private static func apply(
        _ change: AccountPatch, hash: String?, claims: String??, hasPasskey: Bool, to account: inout Account
    ) throws {
        let removed = account.identities.filter { change.unlinking.contains($0.provider) }
        let hadPassword = account.hasUsablePassword
        if let email = change.email {
            if email?.lowercased() != account.email?.lowercased() { account.emailVerified = false }
            account.email = email
        }
        if change.removesPassword {
            account.password = nil
            account.email = nil
            account.emailVerified = false
        }
        if let hash {
            account.password = .chosen(hash)
        }
        if let verified = change.emailVerified { account.emailVerified = verified }
        if let name = change.displayName { account.displayName = name }
        if let photo = change.photoURL { account.photoURL = photo }
        if let phone = change.phoneNumber { account.phoneNumber = phone }
        if let disabled = change.disabled {
            // An administrator's disable (or enable) is theirs: no provider's sign-in undoes it.
            account.disabled = disabled
            account.disabledBy = nil
        }
        if let claims { account.customClaims = claims }
        account.identities.removeAll { change.unlinking.contains($0.provider) }
        // The broker's own rule: removing a way to sign in never leaves none.
        if change.keepsAWayIn, !removed.isEmpty || (change.removesPassword && hadPassword) {
            guard !account.identities.isEmpty || account.hasUsablePassword || hasPasskey else {
                throw AccountAdminError(.lastIdentity, "the account would be left with no way to sign in")
            }
        }
    }

    /// The audit events of an update: `disable`/`enable`, `unlink` per provider, `revoke_sessions`, `update`.
    private func events(
        from before: Account, to after: Account, revoked: Bool, _ requestID: String
    ) -> [AuditEvent] {
        var events: [AuditEvent] = []
        if before.disabled != after.disabled {
            events.append(event(after.id, after.disabled ? .disable : .enable, requestID: requestID))
        }
        for identity in before.identities where after.identity(identity.provider) == nil {
            events.append(event(after.id, .unlink, provider: identity.provider.rawValue, requestID: requestID))
        }
        if revoked { events.append(event(after.id, .revokeSessions, requestID: requestID)) }
        var profile = before
        profile.disabled = after.disabled
        profile.disabledBy = after.disabledBy
        profile.identities = after.identities
        profile.tokensValidAfter = after.tokensValidAfter
        if profile != after { events.append(event(after.id, .update, requestID: requestID)) }
        return events
    }

    // MARK: - Delete

    /// One uid a batch deletion left: its account is enabled, and the batch was not forced.
    public struct BatchDeleteFailure: Sendable, Equatable {
        /// Its index in the request.
        public var index: Int
        /// The uid.
        public var uid: AccountID
    }

    /// Deletes each of `uids` (1 to 1000, else `localIDListExceedsLimit`): an unknown uid is skipped, an enabled
    /// account is left (a ``BatchDeleteFailure``) unless `force`.
    public func delete(
        _ uids: [AccountID], force: Bool, requestID: String
    ) async throws -> [BatchDeleteFailure] {
        guard (1...Self.maximumBatchDelete).contains(uids.count) else {
            throw AccountAdminError(.localIDListExceedsLimit)
        }
        var failures: [BatchDeleteFailure] = []
        for (index, uid) in uids.enumerated() {
            guard let account = try await store.account(id: uid) else { continue }
            guard account.disabled || force else {
                failures.append(BatchDeleteFailure(index: index, uid: uid))
                continue
            }
            do {
                try await delete(uid, requestID: requestID)
            } catch let error as AccountError where error.code == .notFound {
                continue  // deleted meanwhile
            }
        }
        return failures
    }

    // MARK: - Look-ups

    /// The accounts the identifiers name, each once, in this order: by uid, email, phone number, then provider
    /// identity; identifiers matching no account are left out. At most ``maximumLookupIdentifiers`` identifiers
    /// in all.
    public func lookUp(
        uids: [AccountID] = [], emails: [String] = [], phoneNumbers: [String] = [],
        identities: [(provider: ProviderID, subject: String)] = []
    ) async throws -> [Account] {
        let total = uids.count + emails.count + phoneNumbers.count + identities.count
        guard total <= Self.maximumLookupIdentifiers else {
            throw AccountAdminError(.invalidArgument, "at most \(Self.maximumLookupIdentifiers) identifiers")
        }
        var found: [Account] = []
        var seen: Set<AccountID> = []
        func add(_ account: Account?) {
            guard let account, seen.insert(account.id).inserted else { return }
            found.append(account)
        }
        for uid in uids { add(try await store.account(id: uid)) }
        for email in emails { add(try await store.account(email: email)) }
        for phone in phoneNumbers { add(try await store.account(phoneNumber: phone)) }
        for identity in identities {
            add(try await store.account(provider: identity.provider, subject: identity.subject))
        }
        return found
    }

    /// A page of accounts in uid order: up to `limit` (1 to 1000) after `after`, and the uid the next page
    /// starts after (nil on the last page).
    public func page(after: AccountID?, limit: Int) async throws -> (accounts: [Account], next: AccountID?) {
        guard (1...Self.maximumLimit).contains(limit) else {
            throw AccountAdminError(.invalidArgument, "maxResults must be 1 to \(Self.maximumLimit)")
        }
        let page = try await store.listAccounts(afterUID: after, limit: limit + 1)
        let accounts = Array(page.prefix(limit))
        return (accounts, page.count > limit ? accounts.last?.id : nil)
    }

    /// The largest page of ``query(offset:limit:returnUsers:)``, and its default.
    public static let maximumQueryLimit = 500
    /// The largest `offset` of ``query(offset:limit:returnUsers:)``.
    public static let maximumQueryOffset = 100_000
    /// The most accounts ``query(offset:limit:returnUsers:)`` counts: beyond, the count stops there.
    public static let maximumQueryCount = 1_000_000

    /// The number of accounts (counted up to ``maximumQueryCount``) and, when `returnUsers`, up to `limit`
    /// (1 to 500) of them after `offset` (0 to 100,000), in uid order.
    public func query(offset: Int, limit: Int, returnUsers: Bool) async throws -> (count: Int, users: [Account]) {
        guard (1...Self.maximumQueryLimit).contains(limit), (0...Self.maximumQueryOffset).contains(offset) else {
            throw AccountAdminError(.invalidArgument, "limit must be 1 to 500 and offset 0 to 100000")
        }
        var count = 0
        var users: [Account] = []
        var after: AccountID?
        // Bounded: at most maximumQueryCount / maximumLimit pages.
        for _ in 0..<(Self.maximumQueryCount / Self.maximumLimit) {
            let page = try await store.listAccounts(afterUID: after, limit: Self.maximumLimit)
            if returnUsers {
                for (position, account) in page.enumerated() {
                    let index = count + position
                    if index >= offset, index < offset + limit { users.append(account) }
                }
            }
            count += page.count
            guard page.count == Self.maximumLimit, let last = page.last else { break }
            after = last.id
        }
        return (count, users)
    }

    // MARK: - Checks

    /// A uid the broker accepts: 1 to 128 characters, no control characters (`invalidLocalID`).
    package static func checkedUID(_ text: String) throws -> AccountID {
        guard (1...128).contains(text.unicodeScalars.count),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw AccountAdminError(.invalidLocalID) }
        return AccountID(text)
    }

    static func checkEmail(_ email: String) throws {
        guard PasswordPolicy.isValidEmail(email) else { throw AccountAdminError(.invalidEmail) }
    }

    static func checkPhoneNumber(_ phone: String) throws {
        guard PhoneNumber.isValid(phone) else { throw AccountAdminError(.invalidPhoneNumber, "Invalid format.") }
    }

    static func checkDisplayName(_ name: String) throws {
        guard name.count <= maximumDisplayNameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw AccountAdminError(.invalidDisplayName) }
    }

    func checkPhotoURL(_ url: String) throws {
        guard PhotoURL.isAcceptable(url, allowInsecure: allowInsecurePhotoURLs) else {
            throw AccountAdminError(.invalidPhotoURL)
        }
    }

    static func checkPassword(_ password: String) throws {
        guard password.count >= PasswordPolicy.minimumLength else {
            throw AccountAdminError(
                .weakPassword, "Password should be at least \(PasswordPolicy.minimumLength) characters")
        }
        guard password.utf8.count <= PasswordPolicy.maximumBytes else {
            throw AccountAdminError(.weakPassword, "Password should be at most \(PasswordPolicy.maximumBytes) bytes")
        }
    }

    /// `validSince` (epoch seconds, 0 to the end of year 9999) as a date.
    static func checkedValidSince(_ seconds: Int64) throws -> Date {
        guard (0...253_402_300_799).contains(seconds) else { throw AccountAdminError(.invalidValidSince) }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Custom claims' checks, in this order: at most 1000 characters (`claimsTooLarge`), a JSON object
    /// (`invalidClaims`), no reserved name (`forbiddenClaim`, naming it; ``CustomClaims/reserved``); the claims
    /// text to store, nil for `{}` (the way to clear them).
    static func validatedClaims(_ text: String) throws -> String? {
        guard text.count <= CustomClaims.maximumLength else { throw AccountAdminError(.claimsTooLarge) }
        guard let value = JSONValue.parse(Array(text.utf8)), let members = value.objectValue else {
            throw AccountAdminError(.invalidClaims)
        }
        if let name = members.keys.sorted().first(where: CustomClaims.reserved.contains) {
            throw AccountAdminError(.forbiddenClaim, name)
        }
        guard !members.isEmpty else { return nil }
        do {
            return try CustomClaims.validated(value)
        } catch {
            throw AccountAdminError(.invalidClaims)
        }
    }

    /// `password` hashed by the broker's hasher.
    func hash(_ password: String) async throws -> String {
        guard let passwords else { throw AccountAdminError(.passwordHashingUnavailable) }
        return try await passwords.hash(password)
    }
}
