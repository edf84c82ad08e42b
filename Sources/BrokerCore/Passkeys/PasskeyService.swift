import BrokerCrypto
public import BrokerModel
package import BrokerStorage
public import Foundation

/// Passkeys (contract section 15): the options of each WebAuthn ceremony, with their single-use challenges bound to
/// the ceremony and the account; the verification of a registration (``WebAuthnRelyingParty``) and its storage; the
/// verification of a discoverable sign-in, whose session the pipeline's ``PasskeySignIn`` method makes; an account's
/// list, rename and removal. A passkey is a way in: registering one upgrades a guest, and the last way in of an
/// account is never removed.
public struct PasskeyService: Sendable {
    let store: any BrokerStore
    let clock: any Clock
    let settings: PasskeySettings
    /// The name authenticators show (`passkeys.rpName`, else `mail.appName`, else the project id).
    let rpName: String
    let party: WebAuthnRelyingParty

    /// How long a challenge works.
    public static let challengeLifetime: TimeInterval = 5 * 60
    /// Bytes of a challenge.
    static let challengeLength = 32
    /// Bytes of an account's user handle.
    static let userHandleLength = 32
    /// The longest name a passkey may be given.
    public static let maximumNameLength = 100

    /// Creates the service.
    package init(store: any BrokerStore, clock: any Clock, settings: PasskeySettings, rpName: String) {
        self.store = store
        self.clock = clock
        self.settings = settings
        self.rpName = rpName
        party = WebAuthnRelyingParty(rpID: settings.rpID, origins: Set(settings.origins))
    }

    /// The COSE algorithms registration options offer, in order of preference.
    static let algorithms: [COSEKey.Algorithm] = [.es256, .ed25519, .edDSA, .rs256]

    // MARK: - Registration

    /// `PublicKeyCredentialCreationOptionsJSON` for a new passkey of `account`: a fresh challenge (issued to this
    /// account, 5 minutes), its user handle (made with its first passkey), resident key and user verification
    /// required, its passkeys excluded, no attestation.
    public func registrationOptions(for account: Account) async throws -> JSONValue {
        let existing = try await store.passkeys(uid: account.id)
        let handle = existing.first?.userHandle ?? Base64URL.encode(SecureRandom.bytes(Self.userHandleLength))
        let challenge = try await issue(.registration, uid: account.id, userHandle: handle)
        return creationOptions(
            challenge: challenge, userHandle: handle, name: account.email ?? account.id.rawValue,
            displayName: account.displayName ?? account.email ?? "", excluding: existing.map(\.id))
    }

    /// Verifies `credential` (a `RegistrationResponseJSON`) against a registration challenge issued to `account` and
    /// stores the passkey as `name`, audited; a guest stops being one. Throws ``PasskeyError``: `invalidRegistration`
    /// for any check, `passkeyExists` for a credential registered already; nothing is stored then.
    public func register(
        _ account: Account, credential: JSONValue, name: String?, requestID: String
    ) async throws -> PasskeyRecord {
        let verified = try await verifyRegistration(credential, .registration, issuedTo: account.id)
        let now = clock.now
        let record = verified.record(uid: account.id, name: try Self.checkedName(name), at: now)
        let event = Self.event(.passkeyRegister, uid: account.id, at: now, requestID: requestID)
        do {
            try await store.insertPasskey(record, recording: [event])
        } catch let error as AccountStoreError where error.code == .alreadyExists || error.code == .credentialTaken {
            throw PasskeyError(.passkeyExists)
        }
        return try await store.passkey(id: record.id) ?? record
    }

    // MARK: - Passwordless sign-up

    /// `PublicKeyCredentialCreationOptionsJSON` for a passwordless sign-up: a fresh challenge (5 minutes) bound to
    /// a new user handle and the `email` and `displayName` the new account will have. An email is checked and must
    /// be free (`invalidEmail`, `emailExists`). With `guest`, the signed-in guest its sign-up upgrades (contract
    /// section 13), the challenge is issued to that account and works only for its upgrade; an account that is no
    /// guest is ``Refusal/notAGuest``, a disabled one `userDisabled`.
    public func signUpOptions(
        email rawEmail: String?, displayName rawDisplayName: String?, guest: Account? = nil
    ) async throws -> JSONValue {
        if let guest { try GuestService.admitUpgrade(guest) }
        let email = try await checkedSignUpEmail(rawEmail)
        let trimmedName = rawDisplayName?.trimmingCharacters(in: .whitespacesAndNewlines)
        let displayName = trimmedName?.isEmpty == false ? trimmedName : nil
        let handle = Base64URL.encode(SecureRandom.bytes(Self.userHandleLength))
        let challenge = try await issue(
            .signUp, uid: guest?.id, userHandle: handle, email: email, displayName: displayName)
        return creationOptions(
            challenge: challenge, userHandle: handle, name: email ?? displayName ?? "",
            displayName: displayName ?? email ?? "", excluding: [])
    }

    /// Counts a passwordless sign-up from the client `address` (``PasskeySettings/maxSignUpsPerAddressPerHour``,
    /// with the guests' limiter, counted apart from guests); beyond the limit within the hour, `tooManyAttempts` with
    /// the seconds to wait.
    func reserveSignUp(from address: String) async throws {
        try await CreationLimit.reserve(
            "passkey-sign-up " + address, limit: settings.maxSignUpsPerAddressPerHour, at: clock.now, in: store)
    }

    /// A verified passwordless sign-up: the account and its first passkey, not stored yet.
    public struct NewPasskeyAccount: Sendable {
        /// The new account: the email and display name the options were asked for, no password, no identity.
        public var account: Account
        /// Its passkey.
        public var passkey: PasskeyRecord
    }

    /// Verifies `credential` (a `RegistrationResponseJSON`) against a sign-up challenge and makes the account it
    /// creates, storing nothing but the spent challenge. Throws ``PasskeyError``: `invalidRegistration` for any
    /// check, `passkeyExists` for a credential registered already; `emailExists` when the email was taken since.
    /// With `guest`, the sign-up upgrades that guest: the challenge must have been issued to it (and one issued to a
    /// guest works only for its upgrade), and the account made keeps the guest's uid.
    public func verifySignUp(
        _ credential: JSONValue, name: String?, guest: AccountID? = nil
    ) async throws -> NewPasskeyAccount {
        let name = try Self.checkedName(name)
        let verified = try await verifyRegistration(credential, .signUp, issuedTo: guest)
        let issued = verified.issued
        guard try await store.passkey(id: Base64URL.encode(verified.registration.credentialID)) == nil else {
            throw PasskeyError(.passkeyExists)
        }
        _ = try await checkedSignUpEmail(issued.email)
        let now = clock.now
        let account = Account(
            id: guest ?? AccountID.generate(), email: issued.email, emailVerified: false,
            displayName: issued.displayName, createdAt: now, lastSignInAt: now, origin: .signup)
        let passkey = verified.record(uid: account.id, name: name, at: now)
        return NewPasskeyAccount(account: account, passkey: passkey)
    }

    /// Stores a verified sign-up's account and passkey with `session`, its `sign_up` and `passkey_register` audit
    /// events, in one transaction; the account as stored (with a `beforeCreate` hook's amendments).
    public func create(_ new: NewPasskeyAccount, session: SessionGrant, requestID: String) async throws -> Account {
        let uid = new.account.id
        let now = clock.now
        var signUp = Self.event(.signUp, uid: uid, at: now, requestID: requestID)
        signUp.outcome = "created"
        let events = [signUp, Self.event(.passkeyRegister, uid: uid, at: now, requestID: requestID)]
        do {
            try await store.createPasskeyAccount(
                new.account, passkey: new.passkey, options: AccountWriteOptions(issuing: session, recording: events))
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            throw AccountError(.emailExists)  // a concurrent sign-up with the same email won
        } catch let error as AccountStoreError where error.code == .credentialTaken {
            throw PasskeyError(.passkeyExists)
        }
        return try await store.account(id: uid) ?? new.account
    }

    /// Stores a verified sign-up that upgrades the guest `new.account.id` (contract section 13): its passkey, the
    /// email (unverified) and display name asked for, and the account no longer a guest, with `session` and the
    /// `sign_up` and `passkey_register` audit events, in one transaction; the uid, the other sessions and the
    /// custom claims stay. An account that is no guest (another upgrade won) is ``Refusal/notAGuest``, a disabled
    /// one `userDisabled`, an email taken since `emailExists`; nothing is stored then.
    public func upgrade(_ new: NewPasskeyAccount, session: SessionGrant, requestID: String) async throws -> Account {
        let now = clock.now
        let upgrade = new.account
        let events = [
            Self.event(.signUp, uid: upgrade.id, at: now, requestID: requestID),
            Self.event(.passkeyRegister, uid: upgrade.id, at: now, requestID: requestID),
        ]
        return try await GuestService.storingUpgrade {
            try await store.insertPasskey(
                new.passkey, options: AccountWriteOptions(issuing: session, recording: events)
            ) { account in
                try GuestService.upgrade(&account, email: upgrade.email, displayName: upgrade.displayName, at: now)
            }
        }
    }

    /// `email` trimmed (nil when absent or empty), a valid address no account has.
    func checkedSignUpEmail(_ email: String?) async throws -> String? {
        guard let email = email?.trimmingCharacters(in: .whitespaces), !email.isEmpty else { return nil }
        guard PasswordPolicy.isValidEmail(email) else { throw AccountError(.invalidEmail) }
        guard try await store.account(email: email) == nil else { throw AccountError(.emailExists) }
        return email
    }

    // MARK: - Sign-in

    /// `PublicKeyCredentialRequestOptionsJSON` for a discoverable sign-in: a fresh challenge, the RP id, user
    /// verification required, no allowed credentials (the authenticator offers the user's).
    public func signInOptions() async throws -> JSONValue {
        let challenge = try await issue(.signIn)
        return .object([
            "publicKey": .object([
                "challenge": .string(Base64URL.encode(challenge)), "rpId": .string(settings.rpID),
                "timeout": .int(Int64(Self.challengeLifetime * 1000)), "userVerification": .string("required"),
                "allowCredentials": .array([]),
            ])
        ])
    }

    /// A sign-in's verified assertion: the passkey as stored before, and what to update on it.
    public struct VerifiedSignIn: Sendable {
        /// The passkey that signed.
        public var passkey: PasskeyRecord
        /// Its new counter and backup state.
        public var assertion: WebAuthnRelyingParty.Assertion
    }

    /// Verifies `credential` (an `AuthenticationResponseJSON`) against a sign-in challenge: the stored passkey's key,
    /// its account's user handle and its counter. Spends the challenge; writes nothing else. Throws
    /// ``PasskeyError/Code/invalidSignIn`` for any refusal.
    public func verifySignIn(_ credential: JSONValue) async throws -> VerifiedSignIn {
        do {
            let response = try AuthenticationResponse(json: credential)
            _ = try await spend(response.clientDataJSON, .signIn, signIn: true)
            guard let passkey = try await store.passkey(id: Base64URL.encode(response.credentialID)) else {
                throw PasskeyError(.invalidSignIn, "unknown credential")
            }
            let assertion = try party.verifyAuthentication(
                response, challenge: try challenge(of: response.clientDataJSON), publicKey: passkey.publicKey,
                storedSignCount: UInt32(clamping: passkey.signCount),
                userHandle: Base64URL.decode(passkey.userHandle) ?? [])
            return VerifiedSignIn(passkey: passkey, assertion: assertion)
        } catch let error as WebAuthnError {
            throw PasskeyError(error, signIn: true)
        }
    }

    // MARK: - An account's passkeys

    /// The account's passkeys, oldest first.
    public func passkeys(of uid: AccountID) async throws -> [PasskeyRecord] {
        try await store.passkeys(uid: uid)
    }

    /// Renames the passkey `id` of `uid`; ``PasskeyError/Code/passkeyNotFound`` when it has none.
    public func rename(_ uid: AccountID, passkeyID id: String, name: String?) async throws -> PasskeyRecord {
        guard let renamed = try await store.renamePasskey(id: id, uid: uid, name: try Self.checkedName(name)) else {
            throw PasskeyError(.passkeyNotFound)
        }
        return renamed
    }

    /// Removes the passkey `id` of `uid`, audited as `actor`'s; never the account's last way in (`lastIdentity`
    /// when it has no identity, no usable password and no other passkey).
    public func remove(_ uid: AccountID, passkeyID id: String, actor: AuditEvent.Actor, requestID: String) async throws
    {
        let passkeys = try await store.passkeys(uid: uid)
        guard passkeys.contains(where: { $0.id == id }) else { throw PasskeyError(.passkeyNotFound) }
        if passkeys.count == 1, let account = try await store.account(id: uid), account.identities.isEmpty,
            !account.hasUsablePassword
        {
            throw AccountError(.lastIdentity)
        }
        let event = AuditEvent(
            time: clock.now, uid: uid, action: .passkeyDelete, provider: PasskeySignIn.label, actor: actor,
            requestID: requestID)
        guard try await store.deletePasskey(id: id, uid: uid, recording: [event]) else {
            throw PasskeyError(.passkeyNotFound)
        }
    }

    /// Whether the account has a passkey (a way in, for `LAST_IDENTITY`).
    public func hasPasskey(_ uid: AccountID) async throws -> Bool {
        try await !store.passkeys(uid: uid).isEmpty
    }

    // MARK: - Challenges

    /// A new challenge for `ceremony`, stored by its hash.
    func issue(
        _ ceremony: PasskeyCeremony, uid: AccountID? = nil, userHandle: String? = nil, email: String? = nil,
        displayName: String? = nil
    ) async throws -> [UInt8] {
        let challenge = SecureRandom.bytes(Self.challengeLength)
        let now = clock.now
        try await store.insertPasskeyChallenge(
            PasskeyChallengeRecord(
                challengeHash: Hex.encode(Digest.sha256(challenge)), ceremony: ceremony, uid: uid,
                userHandle: userHandle, email: email, displayName: displayName, createdAt: now,
                expiresAt: now.addingTimeInterval(Self.challengeLifetime)))
        return challenge
    }

    /// The challenge `clientDataJSON` names.
    func challenge(of clientDataJSON: [UInt8]) throws(WebAuthnError) -> [UInt8] {
        try CollectedClientData(json: clientDataJSON).challenge
    }

    /// Spends the challenge `clientDataJSON` names, issued for `ceremony`: refused when unknown, used or expired.
    func spend(
        _ clientDataJSON: [UInt8], _ ceremony: PasskeyCeremony, signIn: Bool
    ) async throws -> PasskeyChallengeRecord {
        let challenge = try challenge(of: clientDataJSON)
        guard
            let issued = try await store.consumePasskeyChallenge(
                hash: Hex.encode(Digest.sha256(challenge)), ceremony: ceremony, at: clock.now)
        else {
            throw PasskeyError(signIn ? .invalidSignIn : .invalidRegistration, "challenge unknown, used or expired")
        }
        return issued
    }

    /// `{"publicKey": PublicKeyCredentialCreationOptionsJSON}`.
    func creationOptions(
        challenge: [UInt8], userHandle: String, name: String, displayName: String, excluding: [String]
    ) -> JSONValue {
        .object([
            "publicKey": .object([
                "challenge": .string(Base64URL.encode(challenge)),
                "rp": .object(["id": .string(settings.rpID), "name": .string(rpName)]),
                "user": .object([
                    "id": .string(userHandle), "name": .string(name), "displayName": .string(displayName),
                ]),
                "pubKeyCredParams": .array(
                    Self.algorithms.map { .object(["type": .string("public-key"), "alg": .int($0.rawValue)]) }),
                "timeout": .int(Int64(Self.challengeLifetime * 1000)),
                "excludeCredentials": .array(
                    excluding.map { .object(["type": .string("public-key"), "id": .string($0)]) }),
                "authenticatorSelection": .object([
                    "residentKey": .string("required"), "requireResidentKey": .bool(true),
                    "userVerification": .string("required"),
                ]),
                "attestation": .string("none"),
            ])
        ])
    }

    /// A registration response verified against the challenge it names: the registration and the challenge as issued.
    struct VerifiedRegistration {
        /// The response as parsed.
        var response: RegistrationResponse
        /// What the relying party verified.
        var registration: WebAuthnRelyingParty.Registration
        /// The challenge, spent.
        var issued: PasskeyChallengeRecord
        /// The user handle the challenge was issued with.
        var userHandle: String

        /// The passkey the registration stores for `uid`.
        func record(uid: AccountID, name: String?, at now: Date) -> PasskeyRecord {
            PasskeyRecord(
                id: Base64URL.encode(registration.credentialID), uid: uid, userHandle: userHandle,
                publicKey: registration.publicKey, algorithm: registration.algorithm.rawValue,
                signCount: Int64(registration.signCount), transports: response.transports, name: name, createdAt: now,
                backupEligible: registration.backupEligible, backedUp: registration.backedUp)
        }
    }

    /// The first steps of every registration: parses `credential` (a `RegistrationResponseJSON`), spends the challenge
    /// it names, which must have been issued for `ceremony` to `uid` (nil: to no account) with a user handle, and
    /// verifies the registration against it (``WebAuthnRelyingParty/verifyRegistration(_:challenge:)``). Throws
    /// ``PasskeyError/Code/invalidRegistration`` for any of them; stores nothing but the spent challenge.
    func verifyRegistration(
        _ credential: JSONValue, _ ceremony: PasskeyCeremony, issuedTo uid: AccountID?
    ) async throws -> VerifiedRegistration {
        do {
            let response = try RegistrationResponse(json: credential)
            let issued = try await spend(response.clientDataJSON, ceremony, signIn: false)
            guard issued.uid == uid else { throw PasskeyError(.invalidRegistration, "challenge of another account") }
            guard let handle = issued.userHandle, !handle.isEmpty else {
                throw PasskeyError(.invalidRegistration, "a challenge without a user handle")
            }
            let registration = try party.verifyRegistration(
                response, challenge: try challenge(of: response.clientDataJSON))
            return VerifiedRegistration(
                response: response, registration: registration, issued: issued, userHandle: handle)
        } catch let error as WebAuthnError {
            throw PasskeyError(error, signIn: false)
        }
    }

    /// An audit event of the account's own passkey action.
    static func event(_ action: AuditAction, uid: AccountID, at now: Date, requestID: String) -> AuditEvent {
        AuditEvent(
            time: now, uid: uid, action: action, provider: PasskeySignIn.label, actor: .user, requestID: requestID)
    }

    /// `name` trimmed, nil when empty; refused above ``maximumNameLength``.
    static func checkedName(_ name: String?) throws -> String? {
        guard let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        guard trimmed.count <= maximumNameLength else {
            throw RequestError.invalidRequest("name must be at most \(maximumNameLength) characters")
        }
        return trimmed
    }
}
