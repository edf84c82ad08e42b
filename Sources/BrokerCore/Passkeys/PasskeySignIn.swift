public import BrokerModel
import BrokerStorage

/// `POST /v1/signin/passkey`: a discoverable passkey sign-in (contract section 15). Its authenticate verifies the
/// assertion (and spends the challenge); its commit moves the passkey's counter from the value it verified against,
/// in the transaction that stores the session, so that two sign-ins with one counter value cannot both succeed.
/// With user verification required, it satisfies both factors of an account with a second factor; its ID tokens
/// name `passkey` as their `sign_in_provider`.
struct PasskeySignIn: SignInMethod {
    /// The method's label in metrics, audit events and `sign_in_provider`.
    static let label = "passkey"

    let credential: JSONValue
    let service: PasskeyService

    var label: String { Self.label }
    var secondFactor: SecondFactorRule { .satisfied }

    func uid(of proof: PasskeyService.VerifiedSignIn) -> AccountID? { proof.passkey.uid }

    func authenticate(_ context: SignInContext) async throws -> PasskeyService.VerifiedSignIn {
        try await service.verifySignIn(credential)
    }

    func decide(_ proof: PasskeyService.VerifiedSignIn, _ context: SignInContext) async throws -> SignInDecision {
        guard let account = try await service.store.account(id: proof.passkey.uid) else {
            throw PasskeyError(.invalidSignIn, "the passkey's account is gone")
        }
        guard !account.disabled else { throw AccountError(.userDisabled) }
        return SignInDecision(
            account: account, change: .none,
            credential: SignInCredential(provider: label, subject: proof.passkey.id, email: account.email))
    }

    func commit(
        _ proof: PasskeyService.VerifiedSignIn, session: SessionGrant, context: SignInContext
    ) async throws -> CommittedSignIn {
        let now = service.clock.now
        let event = AuditEvent(
            time: now, uid: proof.passkey.uid, action: .signIn, provider: label, actor: .user,
            requestID: context.requestID)
        do {
            let account = try await service.store.completePasskeySignIn(
                id: proof.passkey.id, signCount: Int64(proof.assertion.signCount),
                previousSignCount: proof.passkey.signCount, backedUp: proof.assertion.backedUp, at: now,
                options: AccountWriteOptions(issuing: session, recording: [event]))
            return CommittedSignIn(account: account, change: .none)
        } catch let error as AccountStoreError where error.code == .alreadyUsed {
            // Another sign-in moved the counter (or removed the passkey) since the verification.
            throw PasskeyError(.invalidSignIn, "counter moved")
        } catch let error as AccountStoreError where error.code == .notFound {
            throw PasskeyError(.invalidSignIn, "the passkey's account is gone")
        } catch let error as AccountStoreError where error.code == .disabled {
            throw AccountError(.userDisabled)
        }
    }
}

extension SignInFlow {
    /// A discoverable passkey sign-in with `credential` (an `AuthenticationResponseJSON`), on the native listener.
    public func signIn(
        passkey credential: JSONValue, requestID: String
    ) async throws -> SignInResult {
        guard let service = passkeys else { throw PasskeyError(.notEnabled) }
        let method = PasskeySignIn(credential: credential, service: service)
        return try await run(method, SignInContext(requestID: requestID)).result
    }
}

/// `POST /v1/signup/passkey`: a passwordless sign-up (contract section 15). Its authenticate verifies the
/// registration against a sign-up challenge (and spends it); its commit stores the new account, whose only way in is
/// the passkey, with the passkey and the session in one transaction. Counted and audited as a sign-up; `beforeCreate`
/// runs before it is stored.
struct PasskeySignUp: SignInMethod {
    let credential: JSONValue
    let name: String?
    let service: PasskeyService
    /// The client address, whose sign-ups are limited per hour.
    let address: String

    var label: String { PasskeySignIn.label }
    var refusalAction: AuditAction { .signUp }
    var counter: String { "broker_signups_total" }
    /// A new account has no second factor.
    var secondFactor: SecondFactorRule { .notAsked }

    func uid(of proof: PasskeyService.NewPasskeyAccount) -> AccountID? { proof.account.id }

    func authenticate(_ context: SignInContext) async throws -> PasskeyService.NewPasskeyAccount {
        try await service.reserveSignUp(from: address)
        return try await service.verifySignUp(credential, name: name)
    }

    func decide(
        _ proof: PasskeyService.NewPasskeyAccount, _ context: SignInContext
    ) async throws -> SignInDecision {
        SignInDecision(
            account: nil, change: .created,
            credential: SignInCredential(provider: label, subject: proof.passkey.id, email: proof.account.email),
            newAccount: proof.account)
    }

    func commit(
        _ proof: PasskeyService.NewPasskeyAccount, session: SessionGrant, context: SignInContext
    ) async throws -> CommittedSignIn {
        let account = try await service.create(proof, session: session, requestID: context.requestID)
        return CommittedSignIn(account: account, change: .created)
    }
}

extension SignInFlow {
    /// A passwordless sign-up with `credential` (a `RegistrationResponseJSON`) naming the passkey `name`, on the
    /// native listener: a new account signed in, counted against the request's client address.
    public func signUp(
        passkey credential: JSONValue, name: String?, requestID: String
    ) async throws -> SignInResult {
        guard let service = passkeys else { throw PasskeyError(.notEnabled) }
        let method = PasskeySignUp(
            credential: credential, name: name, service: service, address: RequestOrigin.current?.clientAddress ?? "")
        return try await run(method, SignInContext(requestID: requestID)).result
    }
}

extension SignInFlow {
    /// Upgrades `guest` in place by a passwordless sign-up with `credential` (a `RegistrationResponseJSON` answering
    /// sign-up options issued to the guest), on the native listener (contract sections 13 and 15): the same uid,
    /// sessions and custom claims, now with the passkey and no longer a guest, and a new `passkey` session stored
    /// with the change (``PasskeyService/upgrade(_:session:requestID:)``). Counted and audited as the upgrade by
    /// `POST /v1/signup` is (``upgradeBySignUp(_:label:requestID:surface:storedBy:)``).
    public func upgrade(
        _ user: SignedInUser, passkey credential: JSONValue, name: String?, requestID: String
    ) async throws -> SignInResult {
        guard let service = passkeys else { throw PasskeyError(.notEnabled) }
        let guest = user.account
        return try await upgradeBySignUp(
            user, label: PasskeySignIn.label, requestID: requestID, surface: .native
        ) { grant in
            // An account that is no guest is refused before its challenge is spent, as `POST /v1/signup` refuses it.
            try GuestService.admitUpgrade(guest)
            let verified = try await service.verifySignUp(credential, name: name, guest: guest.id)
            return try await service.upgrade(verified, session: grant, requestID: requestID)
        }
    }
}
