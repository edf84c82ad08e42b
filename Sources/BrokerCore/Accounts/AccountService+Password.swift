import BrokerIdentity
public import BrokerModel
import BrokerStorage
public import Foundation

extension AccountService {
    /// Failures within this window count towards a lockout.
    public static let lockoutWindow: TimeInterval = 15 * 60
    /// Failures within the window that lock password sign-in.
    public static let lockoutThreshold = 10

    /// A new email and password account, not yet stored (a sign-up's authentication): the email and password
    /// follow ``PasswordPolicy``, the email is not taken (compared case-insensitively), and the password is hashed.
    public func newPasswordAccount(
        email rawEmail: String, password: String, displayName: String?
    ) async throws -> Account {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        try PasswordPolicy.check(email: email, password: password)
        guard try await store.account(email: email) == nil else { throw AccountError(.emailExists) }
        let hash = try await passwords.hash(password)
        let now = clock.now
        return Account(
            id: AccountID.generate(), email: email, emailVerified: false, displayName: displayName, createdAt: now,
            lastSignInAt: now, password: .chosen(hash), origin: .signup)
    }

    /// Stores `account` (from ``newPasswordAccount(email:password:displayName:)``) with `session` and, with
    /// `requestID`, its `sign_up` audit event, in one transaction. An email taken meanwhile is `emailExists`.
    public func createPasswordAccount(
        _ account: Account, session: SessionGrant? = nil, requestID: String? = nil
    ) async throws -> Account {
        do {
            let events = requestID.map {
                [Self.passwordEvent(.signUp, uid: account.id, at: clock.now, outcome: "created", requestID: $0)]
            }
            try await store.create(account, options: AccountWriteOptions(issuing: session, recording: events ?? []))
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw AccountError(.emailExists)  // a concurrent sign-up with the same email won
        }
        return account
    }

    /// A password that verified against an account's hash, to record the sign-in with.
    public struct VerifiedPassword: Sendable {
        /// The account, as it was read.
        public var account: Account
        /// The hash the password matched.
        public var verifiedHash: String
        /// An Argon2id hash of the password replacing an imported one, if one was made.
        public var rehash: String?
        /// The lockout key whose failed attempts the sign-in's commit forgets; nil for an account with a second
        /// factor, whose count is kept until the second factor completes (contract section 14).
        public var clearsFailuresOf: String?

        /// A password verified against `account`'s `verifiedHash`.
        public init(account: Account, verifiedHash: String, rehash: String? = nil, clearsFailuresOf: String? = nil) {
            self.account = account
            self.verifiedHash = verifiedHash
            self.rehash = rehash
            self.clearsFailuresOf = clearsFailuresOf
        }
    }

    /// Checks email and password (a password sign-in's authentication). A wrong email and a wrong password get the
    /// same answer after the same work; ten failures for one email within 15 minutes lock it, even against the
    /// right password. A password a provider's mapping refuses (``PasswordSignInGuarding``) is a wrong one.
    public func verifyPassword(email rawEmail: String, password: String) async throws -> VerifiedPassword {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        let key = email.lowercased()
        let now = clock.now
        let account = try await store.account(email: email)
        let hash = account.flatMap { $0.hasUsablePassword ? $0.password?.hash : nil }
        // Counted before the password is checked; an unknown email costs the decoy's hashing.
        let matches = try await CountedPasswordCheck(attempts: store, passwords: passwords).matches(
            password, against: hash, decoy: decoyHash, emailKey: key, at: now)
        guard let account, let hash else {
            throw AccountError(.invalidLoginCredentials, credentialProblem: .noSuchAccount)
        }
        guard matches else { throw AccountError(.invalidLoginCredentials, credentialProblem: .wrongPassword) }
        // A password a provider's mapping made that is not the owner's own (an imported account's public id at
        // that provider) is a wrong password, counted as one.
        guard !passwordGuards.contains(where: { $0.refusesPasswordSignIn(password, to: account) }) else {
            throw AccountError(.invalidLoginCredentials, credentialProblem: .wrongPassword)
        }
        guard !account.disabled else { throw AccountError(.userDisabled) }
        // The count ends with the sign-in's commit; an account with a second factor keeps it until the second factor
        // completes (contract section 14).
        let clears = try await secondFactors?.secondFactors(uid: account.id).isEmpty ?? true
        // An imported hash (imported scrypt and the others) is replaced by Argon2id in the sign-in's own
        // transaction (contract section 8). When the hasher's queue is full the sign-in goes on with the old hash:
        // the next one upgrades it.
        let rehash = passwords.needsRehash(hash) ? try? await passwords.hash(password) : nil
        return VerifiedPassword(
            account: account, verifiedHash: hash, rehash: rehash, clearsFailuresOf: clears ? key : nil)
    }

    /// Records a verified password sign-in: `session` stored with it, and with `requestID` its `sign_in` audit
    /// event, the rehash and the end of the lockout's count, in one transaction; the password verified must still be
    /// the account's (a takeover may have removed it meanwhile: then `invalidLoginCredentials`).
    public func recordPasswordSignIn(
        _ verified: VerifiedPassword, session: SessionGrant? = nil, requestID: String? = nil
    ) async throws -> Account {
        let now = clock.now
        let id = verified.account.id
        do {
            let events = requestID.map { [Self.passwordEvent(.signIn, uid: id, at: now, requestID: $0)] }
            let options = AccountWriteOptions(
                issuing: session, recording: events ?? [], clearingLoginFailures: verified.clearsFailuresOf)
            // The account's `lastSignInAt` and the rehash (an imported hash upgraded to Argon2id, contract section 8)
            // with the session and the event; nothing when the hash verified is no longer the account's usable one (a
            // takeover or a reset changed it meanwhile) or the account was disabled meanwhile.
            let (verifiedHash, rehash) = (verified.verifiedHash, verified.rehash)
            return try await store.update(id: id, options: options) { account in
                guard account.password?.hash == verifiedHash, account.hasUsablePassword else {
                    throw AccountError(.invalidLoginCredentials)
                }
                guard !account.disabled else { throw AccountError(.userDisabled) }
                account.lastSignInAt = now
                if let rehash { account.password?.hash = rehash }
            }
        } catch let error as AccountStoreError where error.code == .notFound {
            throw AccountError(.invalidLoginCredentials)  // deleted meanwhile
        }
    }

    /// An audit event of the password provider, by the user.
    private static func passwordEvent(
        _ action: AuditAction, uid: AccountID, at time: Date, outcome: String = "success", requestID: String
    ) -> AuditEvent {
        AuditEvent(
            time: time, uid: uid, action: action, provider: "password", actor: .user, outcome: outcome,
            requestID: requestID)
    }
}
