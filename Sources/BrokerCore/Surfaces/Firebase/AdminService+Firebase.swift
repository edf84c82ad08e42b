import BrokerCrypto
import Foundation

/// What Firebase's admin API (the Identity Toolkit `projects/{p}/accounts…` calls) asks of accounts, in
/// the broker's terms: the Firebase surface only translates its wire format to these. Every change is audited
/// with actor `admin`, as the admin API's are; a refused call changes nothing.
extension AdminService {
    /// The longest display name kept.
    public static let maximumDisplayNameLength = 256
    /// The most identifiers one look-up takes.
    public static let maximumLookupIdentifiers = 1000
    /// The most uids one batch deletion takes.
    public static let maximumBatchDelete = 1000
    /// The default and largest page of `accounts:batchGet`.
    public static let defaultFirebasePageSize = 20

    // MARK: - Create

    /// Creates the account Firebase's admin `accounts` call describes: the uid kept when given
    /// (`DUPLICATE_LOCAL_ID` when taken), the email and phone number unique (`EMAIL_EXISTS`,
    /// `PHONE_NUMBER_EXISTS`), the password hashed by the broker's hasher. Origin `admin`; audited as `create`
    /// in the same transaction.
    public func createFirebaseAccount(_ new: FirebaseNewAccount, requestID: String) async throws -> Account {
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

    /// `EMAIL_EXISTS` or `PHONE_NUMBER_EXISTS` when another account than `uid` holds `email` or `phoneNumber`.
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

    /// Applies Firebase's `accounts:update` to `uid` (`USER_NOT_FOUND` when absent), in one transaction; a new
    /// password or a `validSince` also revokes the account's sessions (the broker's, and Firebase's with a
    /// service account), and `validSince` becomes the instant before which ID tokens stop working.
    public func updateFirebaseAccount(
        _ uid: AccountID, _ change: FirebaseAccountChange, requestID: String
    ) async throws -> Account {
        guard try await store.account(id: uid) != nil else { throw AccountAdminError(.userNotFound) }
        if case .some(.some(let email)) = change.email { try Self.checkEmail(email) }
        if case .some(.some(let phone)) = change.phoneNumber { try Self.checkPhoneNumber(phone) }
        if case .some(.some(let name)) = change.displayName { try Self.checkDisplayName(name) }
        if case .some(.some(let photo)) = change.photoURL { try checkPhotoURL(photo) }
        if let password = change.password { try Self.checkPassword(password) }
        let claims = try change.customAttributes.map(Self.firebaseClaims)
        let validAfter = try change.validSince.map(Self.checkedValidSince)
        let newEmail = change.email.flatMap { $0 }
        let newPhone = change.phoneNumber.flatMap { $0 }
        if let conflict = try await conflict(email: newEmail, phoneNumber: newPhone, of: uid) { throw conflict }
        var newHash: String?
        if let password = change.password { newHash = try await self.hash(password) }
        let hash = newHash

        let revokes = hash != nil || validAfter != nil
        let options = AccountWriteOptions(revokeSessions: revokes, enqueuing: revokes ? revocationJobs(uid) : [])
        let before: Account
        var updated: Account
        do {
            before = try await user(uid)
            updated = try await store.update(id: uid, options: options) { account in
                try Self.apply(change, hash: hash, claims: claims, to: &account)
            }
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountAdminError(.userNotFound)
        } catch let error as AccountError where error.code == .notFound {
            throw AccountAdminError(.userNotFound)
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw try await conflict(email: newEmail, phoneNumber: newPhone, of: uid) ?? AccountAdminError(.emailExists)
        }
        // The revocation stamps the current second; Firebase's `validSince` names its own.
        if let validAfter, updated.tokensValidAfter != validAfter {
            updated = try await store.update(id: uid) { $0.tokensValidAfter = validAfter }
        }
        await recordFirebaseChange(from: before, to: updated, change, revoked: revokes, requestID: requestID)
        return updated
    }

    /// `change` applied to `account` inside the update's transaction.
    private static func apply(
        _ change: FirebaseAccountChange, hash: String?, claims: String??, to account: inout Account
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
        // The broker's rule (not Firebase's): removing a way to sign in never leaves none.
        if !removed.isEmpty || (change.removesPassword && hadPassword) {
            guard !account.identities.isEmpty || account.hasUsablePassword else {
                throw AccountAdminError(.lastIdentity, "the account would be left with no way to sign in")
            }
        }
    }

    /// The audit events of an update: `disable`/`enable`, `unlink` per provider, `revoke_sessions`, `update`.
    private func recordFirebaseChange(
        from before: Account, to after: Account, _ change: FirebaseAccountChange, revoked: Bool, requestID: String
    ) async {
        if before.disabled != after.disabled {
            await record(after.id, after.disabled ? .disable : .enable, requestID: requestID)
        }
        for identity in before.identities where after.identity(identity.provider) == nil {
            await record(after.id, .unlink, provider: identity.provider.rawValue, requestID: requestID)
        }
        if revoked { await record(after.id, .revokeSessions, requestID: requestID) }
        var profile = before
        profile.disabled = after.disabled
        profile.disabledBy = after.disabledBy
        profile.identities = after.identities
        profile.tokensValidAfter = after.tokensValidAfter
        if profile != after { await record(after.id, .update, requestID: requestID) }
    }

    // MARK: - Delete

    /// Deletes `uid` through the deletion seam (``AccountDeletion``); `USER_NOT_FOUND` when absent.
    public func deleteFirebaseAccount(_ uid: AccountID, requestID: String) async throws {
        do {
            try await delete(uid, requestID: requestID)
        } catch let error as AccountError where error.code == .notFound {
            throw AccountAdminError(.userNotFound)
        }
    }

    /// One uid `accounts:batchDelete` did not delete.
    public struct BatchDeleteFailure: Sendable, Equatable {
        /// Its index in the request.
        public var index: Int
        /// The uid.
        public var uid: AccountID
        /// Firebase's message (`NOT_DISABLED : …`).
        public var message: String
    }

    /// Deletes each of `uids` (1 to 1000, else `LOCAL_ID_LIST_EXCEEDS_LIMIT`) as Firebase's `batchDelete` does:
    /// an unknown uid is skipped, an enabled account is left (`NOT_DISABLED`) unless `force`.
    public func deleteFirebaseAccounts(
        _ uids: [AccountID], force: Bool, requestID: String
    ) async throws -> [BatchDeleteFailure] {
        guard (1...Self.maximumBatchDelete).contains(uids.count) else {
            throw AccountAdminError(.localIDListExceedsLimit)
        }
        var failures: [BatchDeleteFailure] = []
        for (index, uid) in uids.enumerated() {
            guard let account = try await store.account(id: uid) else { continue }
            guard account.disabled || force else {
                failures.append(
                    BatchDeleteFailure(
                        index: index, uid: uid, message: "NOT_DISABLED : Disable the account before batch deletion."))
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

    /// The accounts `accounts:lookup` names, each once, in the order Firebase answers them: by uid, email, phone
    /// number, then provider identity; identifiers matching no account are left out. At most
    /// ``maximumLookupIdentifiers`` identifiers in all.
    public func lookUpFirebaseAccounts(
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

    /// A page of `accounts:batchGet`: up to `maxResults` (1 to 1000) accounts in uid order after `pageToken`,
    /// and the next page's token (nil on the last page). A token the broker did not give is
    /// `INVALID_PAGE_SELECTION`.
    public func firebaseAccountPage(pageToken: String?, maxResults: Int) async throws -> ([Account], String?) {
        guard (1...Self.maximumLimit).contains(maxResults) else {
            throw AccountAdminError(.invalidArgument, "maxResults must be 1 to \(Self.maximumLimit)")
        }
        let after = try pageToken.map(Self.uid(fromPageToken:))
        let page = try await store.listAccounts(afterUID: after, limit: maxResults + 1)
        let users = Array(page.prefix(maxResults))
        let next = page.count > maxResults ? users.last.map { Self.pageToken(after: $0.id) } : nil
        return (users, next)
    }

    /// The largest page of `accounts:query`, and its default.
    public static let maximumQueryLimit = 500
    /// The largest `offset` of `accounts:query`.
    public static let maximumQueryOffset = 100_000
    /// The most accounts `accounts:query` counts (its `recordsCount`): beyond, the count stops there.
    public static let maximumQueryCount = 1_000_000

    /// `accounts:query` as Firebase answers it without a filter (`expression` empty): the number of accounts
    /// (counted up to ``maximumQueryCount``) and, when `returnUserInfo`, up to `limit` (1 to 500) of them after
    /// `offset` (0 to 100,000), in uid order.
    public func queryFirebaseAccounts(
        offset: Int, limit: Int, returnUserInfo: Bool
    ) async throws -> (count: Int, users: [Account]) {
        guard (1...Self.maximumQueryLimit).contains(limit), (0...Self.maximumQueryOffset).contains(offset) else {
            throw AccountAdminError(.invalidArgument, "limit must be 1 to 500 and offset 0 to 100000")
        }
        var count = 0
        var users: [Account] = []
        var after: AccountID?
        // Bounded: at most maximumQueryCount / maximumLimit pages.
        for _ in 0..<(Self.maximumQueryCount / Self.maximumLimit) {
            let page = try await store.listAccounts(afterUID: after, limit: Self.maximumLimit)
            if returnUserInfo {
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

    /// The page token of the accounts after `uid`: its base64url, no padding.
    static func pageToken(after uid: AccountID) -> String {
        Base64.encode(Array(uid.rawValue.utf8)).replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private static func uid(fromPageToken token: String) throws -> AccountID {
        guard token.utf8.count <= 200, let bytes = FirebaseBase64.decode(token),
            let text = String(validating: bytes, as: UTF8.self), (try? checkedUID(text)) != nil
        else { throw AccountAdminError(.invalidPageSelection) }
        return AccountID(text)
    }

    // MARK: - Checks

    /// A uid Firebase accepts: 1 to 128 characters, no control characters (`INVALID_LOCAL_ID`).
    static func checkedUID(_ text: String) throws -> AccountID {
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

    /// Firebase's `customAttributes` checks, in its order: at most 1000 characters (`CLAIMS_TOO_LARGE`), a JSON
    /// object (`INVALID_CLAIMS`), no reserved name (`FORBIDDEN_CLAIM : name`; the broker's ``CustomClaims``
    /// list, which holds Firebase's); the claims text to store, nil for `{}` (Firebase's way to clear them).
    static func firebaseClaims(_ text: String) throws -> String? {
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
