import BrokerCrypto
public import BrokerModel
package import BrokerStorage
public import Foundation

/// Second factors (contract section 14): authenticator apps (RFC 6238 TOTP, secrets sealed with
/// `BROKER_ENCRYPTION_KEY`) and recovery codes (random, shown once, stored as hashes, each usable once). Enrols,
/// lists and removes an account's factors, holds a sign-in for its second factor (``SecondFactorPhase``) and checks
/// the code that finishes it; the completion itself is the ``SecondFactorSignIn`` method of the pipeline.
public struct SecondFactorService: Sendable {
    let store: any BrokerStore
    let cipher: OutboxCipher
    let clock: any Clock
    let settings: SecondFactorSettings
    /// The name authenticator apps show (`mfa.totp.issuer`, else `mail.appName`, else the project id).
    let issuer: String

    /// How long an enrolment waits for its first code.
    public static let enrolmentLifetime: TimeInterval = 10 * 60
    /// How long a pending sign-in waits for its second factor.
    public static let pendingLifetime: TimeInterval = 5 * 60
    /// Wrong codes after which a pending sign-in is dead.
    public static let wrongCodeLimit = 5
    /// Recovery codes in a set.
    public static let recoveryCodeCount = 10
    /// Bytes of a TOTP secret (RFC 4226's recommended 160 bits).
    static let secretLength = 20

    /// Creates the service.
    package init(
        store: any BrokerStore, cipher: OutboxCipher, clock: any Clock, settings: SecondFactorSettings, issuer: String
    ) {
        self.store = store
        self.cipher = cipher
        self.clock = clock
        self.settings = settings
        self.issuer = issuer
    }

    /// A started enrolment: what an authenticator app is given.
    public struct Enrolment: Sendable, Equatable {
        /// The id `verify` takes.
        public var enrollmentID: String
        /// The secret, base32 (no padding).
        public var secret: String
        /// The `otpauth://totp/...` URI (a QR code of it is what apps scan).
        public var otpauthURI: String
        /// Digits per code.
        public var digits: Int
        /// Seconds per code.
        public var periodSeconds: Int
        /// When the enrolment stops waiting for its first code.
        public var expiresAt: Date
    }

    /// A verified enrolment: the factor and its recovery codes, shown once.
    public struct Enrolled: Sendable {
        /// The factor.
        public var factor: SecondFactorRecord
        /// The new set of recovery codes (the old set died).
        public var recoveryCodes: [String]
    }

    /// An account's second factors as its owner and administrators see them (never a secret).
    public struct Overview: Sendable, Equatable {
        /// The enrolled factors, oldest first.
        public var factors: [SecondFactorRecord]
        /// Unused recovery codes.
        public var recoveryCodesLeft: Int
    }

    // MARK: - Enrolment

    /// Starts an enrolment of an authenticator app for `account`: a new random secret, sealed and stored pending for
    /// ten minutes.
    public func startEnrolment(for account: Account) async throws -> Enrolment {
        let now = clock.now
        let id = Self.newID()
        let secret = SecureRandom.bytes(Self.secretLength)
        let encoded = Base32.encode(secret, padded: false)
        let record = SecondFactorRecord(
            id: id, uid: account.id,
            sealedSecret: try cipher.seal(encoded, context: Self.sealingContext(account.id, id)),
            createdAt: now)
        try await store.insertSecondFactor(record, purgeBefore: now - Self.enrolmentLifetime)
        return Enrolment(
            enrollmentID: id, secret: encoded, otpauthURI: otpauthURI(secret: encoded, account: account),
            digits: settings.digits, periodSeconds: settings.periodSeconds, expiresAt: now + Self.enrolmentLifetime)
    }

    /// Verifies the enrolment `enrollmentID` of `uid` with a code of its secret: the factor is enrolled with a new
    /// set of recovery codes (and its `mfa_enroll` event) in one transaction. A wrong code is `invalidCode`; an
    /// unknown, expired or verified enrolment is `factorNotFound`.
    public func verifyEnrolment(
        _ uid: AccountID, enrollmentID: String, code: String, displayName: String?, requestID: String
    ) async throws -> Enrolled {
        let now = clock.now
        guard let pending = try await store.secondFactor(id: enrollmentID, uid: uid), pending.enrolledAt == nil,
            pending.createdAt > now - Self.enrolmentLifetime
        else { throw SecondFactorError(.factorNotFound, "no such pending enrolment") }
        guard let step = try matchingStep(code, of: pending, at: now) else {
            throw SecondFactorError(.invalidCode, "wrong enrolment code")
        }
        let codes = Self.newRecoveryCodes()
        let event = AuditEvent(
            time: now, uid: uid, action: .mfaEnroll, provider: pending.type, actor: .user, requestID: requestID)
        let name = displayName.flatMap { $0.isEmpty ? nil : $0 }
        guard
            let factor = try await store.confirmSecondFactor(
                id: enrollmentID, uid: uid, displayName: name, step: step, at: now,
                madeAfter: now - Self.enrolmentLifetime, recoveryCodeHashes: codes.map(Self.recoveryCodeHash),
                recording: [event])
        else { throw SecondFactorError(.factorNotFound, "verified or expired meanwhile") }
        return Enrolled(factor: factor, recoveryCodes: codes)
    }

    /// The account's factors and recovery codes left.
    public func overview(_ uid: AccountID) async throws -> Overview {
        Overview(
            factors: try await store.secondFactors(uid: uid),
            recoveryCodesLeft: try await store.recoveryCodesLeft(uid: uid))
    }

    /// The enrolled factors of each of `uids` that has one, oldest first, in one read (an admin page's users).
    public func enrolledFactors(of uids: [AccountID]) async throws -> [AccountID: [SecondFactorRecord]] {
        guard !uids.isEmpty else { return [:] }
        return try await store.secondFactorSets(of: uids).mapValues(\.factors)
    }

    /// Removes the enrolled factor `factorID` of `uid` (and the recovery codes with the last one), audited as
    /// `mfa_unenroll` by `actor`; `factorNotFound` when there is none.
    public func remove(_ uid: AccountID, factorID: String, actor: AuditEvent.Actor, requestID: String) async throws {
        let event = AuditEvent(
            time: clock.now, uid: uid, action: .mfaUnenroll, provider: "totp", actor: actor, requestID: requestID)
        guard try await store.deleteSecondFactor(id: factorID, uid: uid, recording: [event]) else {
            throw SecondFactorError(.factorNotFound, "no such factor")
        }
    }

    /// A new set of recovery codes for `uid` (the old set dies), audited; `factorNotFound` without a factor.
    public func regenerateRecoveryCodes(_ uid: AccountID, requestID: String) async throws -> [String] {
        let codes = Self.newRecoveryCodes()
        let event = AuditEvent(
            time: clock.now, uid: uid, action: .mfaRecoveryCodes, actor: .user, requestID: requestID)
        guard
            try await store.replaceRecoveryCodes(uid: uid, hashes: codes.map(Self.recoveryCodeHash), recording: [event])
        else { throw SecondFactorError(.factorNotFound, "no enrolled factor") }
        return codes
    }

    // MARK: - Sign-in

    /// Holds a sign-in to `account` for its second factor when it has one: a pending credential (single-use, five
    /// minutes) is stored with the session the first factor would make, and the first factor's single-use mark
    /// `mark` is spent with it (a replay is refused, `TOKEN_REPLAYED`, as on any sign-in, and holds nothing); nil,
    /// spending nothing, when the account has no factor. A `link` the sign-in would make (or a returning identity's
    /// new provider token) is stored nowhere: it is sealed into the credential itself (`random.sealed-link`, the whole
    /// credential's hash the key of the pending row, so it cannot be changed), and stored by the completion.
    func hold(
        _ account: Account, signInProvider: String, surface: SessionSurface, link: HeldLink? = nil,
        consuming mark: SingleUseMark? = nil
    ) async throws -> PendingSecondFactor? {
        let factors = try await store.secondFactors(uid: account.id)
        guard !factors.isEmpty else { return nil }
        let now = clock.now
        var credential = Base64URL.encode(SecureRandom.bytes(32))
        if let link {
            let text = String(decoding: link.json.serialized(), as: UTF8.self)
            credential += "." + (try cipher.seal(text, context: HeldLink.sealingContext(account.id)))
        }
        let record = PendingSignInRecord(
            credentialHash: Self.hash(credential), uid: account.id, signInProvider: signInProvider, surface: surface,
            createdAt: now, expiresAt: now + Self.pendingLifetime)
        do {
            try await store.insertPendingSignIn(record, consuming: mark)
        } catch let error as AccountStoreError where error.code == .alreadyUsed {
            throw TokenError(.replayed)
        }
        return PendingSecondFactor(
            uid: account.id, credential: credential,
            factors: factors.map { PendingSecondFactor.Factor(id: $0.id, type: $0.type, displayName: $0.displayName) })
    }

    /// What a second step presents: a TOTP code of a factor, or a recovery code.
    public enum Answer: Sendable, Equatable {
        /// A code of the factor `factorID`.
        case totp(factorID: String, code: String)
        /// A recovery code.
        case recoveryCode(String)
    }

    /// A second step checked against what was read (the commit checks again inside its transaction).
    struct Checked: Sendable {
        /// The pending sign-in.
        var pending: PendingSignInRecord
        /// What the commit must find still true.
        var proof: SecondFactorProof
        /// The account, as read.
        var account: Account
        /// The link the first factor's sign-in would have made, made by the completion.
        var link: HeldLink?
    }

    /// Checks `answer` for the pending sign-in `credential`: the pending sign-in must be alive and held on `surface`
    /// (a credential of the other listener is `invalidPendingCredential` before its code is looked at), the account's
    /// lockout not reached (the attempt counts toward it until the sign-in completes), and the code right. A wrong
    /// code counts against the pending sign-in (dead after five: `invalidPendingCredential`) and is `invalidCode`.
    func check(_ answer: Answer, for credential: String, on surface: SessionSurface) async throws -> Checked {
        let now = clock.now
        let hash = Self.hash(credential)
        guard let pending = try await store.pendingSignIn(hash: hash, at: now),
            let account = try await store.account(id: pending.uid)
        else { throw SecondFactorError(.invalidPendingCredential, "unknown, expired or used") }
        // A sign-in held on one listener is finished there: checked before the code, so the answer says nothing of
        // the code (and the attempt costs nothing).
        guard pending.surface == surface else {
            throw SecondFactorError(.invalidPendingCredential, "held on another listener")
        }
        guard !account.disabled else { throw AccountError(.userDisabled) }
        let key = Self.lockoutKey(account)
        if let unlocksAt = try await store.reserveLoginAttempt(
            emailKey: key, at: now, window: AccountService.lockoutWindow, limit: AccountService.lockoutThreshold)
        {
            throw AccountError.tooManyAttempts(until: unlocksAt, from: now, window: AccountService.lockoutWindow)
        }
        let proof: SecondFactorProof?
        switch answer {
        case .totp(let factorID, let code):
            let factor = try await store.secondFactor(id: factorID, uid: account.id)
            proof = try factor.flatMap { factor in
                guard factor.enrolledAt != nil, let step = try matchingStep(code, of: factor, at: now),
                    step > (factor.lastUsedStep ?? -1)
                else { return nil }
                return .totp(factorID: factor.id, step: step)
            }
        case .recoveryCode(let code):
            proof = Self.normalizedRecoveryCode(code).map { .recoveryCode(hash: Self.recoveryCodeHash($0)) }
        }
        guard let proof else { throw try await wrongCode(hash) }
        return Checked(
            pending: pending, proof: proof, account: account, link: try heldLink(in: credential, of: account))
    }

    /// The link sealed into a pending `credential` for `account`, if any; `invalidPendingCredential` when it does
    /// not open (the key changed since it was made).
    private func heldLink(in credential: String, of account: Account) throws -> HeldLink? {
        guard let dot = credential.firstIndex(of: ".") else { return nil }
        let box = String(credential[credential.index(after: dot)...])
        guard let text = try? cipher.open(box, context: HeldLink.sealingContext(account.id)),
            let json = JSONValue.parse(Array(text.utf8)), let link = HeldLink(json: json, at: clock.now)
        else { throw SecondFactorError(.invalidPendingCredential, "the held link does not open") }
        return link
    }

    /// Counts a wrong code against the pending sign-in `hash`; the refusal to give.
    func wrongCode(_ hash: String) async throws -> SecondFactorError {
        let failures = try await store.recordPendingFailure(hash: hash, limit: Self.wrongCodeLimit)
        guard let failures, failures < Self.wrongCodeLimit else {
            return SecondFactorError(.invalidPendingCredential, "too many wrong codes")
        }
        return SecondFactorError(.invalidCode, "wrong code \(failures)")
    }

    // MARK: - Codes and secrets

    /// The time step among the current one and one either side whose code `code` is, for `factor`.
    private func matchingStep(_ code: String, of factor: SecondFactorRecord, at now: Date) throws -> Int64? {
        let digits = code.filter { $0 != " " }
        let encoded = try cipher.open(factor.sealedSecret, context: Self.sealingContext(factor.uid, factor.id))
        guard let secret = Base32.decode(encoded) else { return nil }
        let step = TOTP.step(unixTime: now.timeIntervalSince1970, period: settings.periodSeconds)
        return TOTP.matchingStep(digits, secret: secret, around: step, digits: settings.digits).map(Int64.init)
    }

    /// `otpauth://totp/{issuer}:{email or uid}?secret=…&issuer=…&algorithm=SHA1&digits=…&period=…`.
    func otpauthURI(secret: String, account: Account) -> String {
        let label = Self.escaped(issuer) + ":" + Self.escaped(account.email ?? account.id.rawValue)
        return "otpauth://totp/\(label)?secret=\(secret)&issuer=\(Self.escaped(issuer))&algorithm=SHA1"
            + "&digits=\(settings.digits)&period=\(settings.periodSeconds)"
    }

    /// `text` percent-encoded for a URI's path or query value (RFC 3986 unreserved characters kept).
    static func escaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The associated data a factor's secret is sealed with: a box cannot be moved to another factor or account.
    package static func sealingContext(_ uid: AccountID, _ factorID: String) -> String {
        "second-factor:\(uid.rawValue):\(factorID)"
    }

    /// The key a second factor's wrong codes count under: the account's email's, as a password's do, or its uid's.
    static func lockoutKey(_ account: Account) -> String { account.email?.lowercased() ?? "uid:" + account.id.rawValue }

    /// A new factor or enrolment id.
    static func newID() -> String { Hex.encode(SecureRandom.bytes(10)) }

    /// Ten new recovery codes, `xxxxx-xxxxx` (50 random bits each, base32 lower case).
    static func newRecoveryCodes() -> [String] {
        (0..<recoveryCodeCount).map { _ in
            let text = Base32.encode(SecureRandom.bytes(7), padded: false).lowercased().prefix(10)
            return String(text.prefix(5)) + "-" + String(text.suffix(5))
        }
    }

    /// A recovery code as typed, without case, spaces or dashes; nil when it cannot be one.
    static func normalizedRecoveryCode(_ code: String) -> String? {
        let plain = code.lowercased().filter { $0 != "-" && $0 != " " }
        return plain.count == 10 ? plain : nil
    }

    /// The stored hash of a recovery code (SHA-256 hex of its normalized form).
    static func recoveryCodeHash(_ code: String) -> String {
        hash(normalizedRecoveryCode(code) ?? code)
    }

    /// SHA-256 hex.
    static func hash(_ text: String) -> String { Hex.encode(Digest.sha256(Array(text.utf8))) }
}
