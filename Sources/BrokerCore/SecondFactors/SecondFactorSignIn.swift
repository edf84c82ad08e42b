import BrokerModel
import BrokerStorage
import Foundation

/// The second-factor phase of every sign-in when `mfa.totp` is enabled: a sign-in to an account with a factor is
/// held, storing only its pending credential (contract section 14).
struct TOTPSecondFactorPhase: SecondFactorPhase {
    let service: SecondFactorService

    func challenge(
        _ decision: SignInDecision, method: String, context: SignInContext
    ) async throws -> PendingSecondFactor? {
        guard let account = decision.account else { return nil }
        return try await service.hold(
            account, signInProvider: method, surface: context.surface, link: decision.heldLink,
            consuming: decision.singleUse)
    }
}

/// `POST /v1/signin/mfa` (and another listener's second-factor step): a held sign-in finished with a TOTP code or a
/// recovery code. Its decide finds the pending account; its commit spends the pending credential and checks again, in
/// its transaction, that the factor is still enrolled and the step unused (or the recovery code unused), then stores
/// the session the first factor would have made, its ID tokens carrying `mfa`: `totp` or `recovery`. Counted and
/// audited under `mfa`; a wrong code counts toward the account's lockout, and a completed second factor clears it in
/// its transaction. So a completion is one commit (the pending credential spent, the factor's step or recovery code
/// used, the session, the audit events, the lockout cleared) after the one that counts its attempt before the code is
/// checked (``SecondFactorService/check(_:for:)``, as a password's: so concurrent guesses cannot all slip under the
/// limit); a crash between them leaves one counted attempt and the pending sign-in usable.
struct SecondFactorSignIn: SignInMethod {
    let credential: String
    let answer: SecondFactorService.Answer
    let service: SecondFactorService
    /// The format of the sessions of the listener the sign-in is finished on, which names the factor in its claims.
    let format: any SessionFormat

    var label: String { "mfa" }
    var secondFactor: SecondFactorRule { .satisfied }

    func uid(of proof: SecondFactorService.Checked) -> AccountID? { proof.account.id }

    func sessionProvider(_ proof: SecondFactorService.Checked, on surface: SessionSurface) -> String {
        proof.pending.signInProvider
    }

    /// `mfa`: `totp` or `recovery`, and what the listener's session format keeps besides
    /// (``SessionFormat/secondFactorClaims(_:factorID:)``).
    func sessionClaims(_ proof: SecondFactorService.Checked) -> String? {
        let claims =
            switch proof.proof {
            case .totp(let factorID, _): format.secondFactorClaims("totp", factorID: factorID)
            case .recoveryCode: format.secondFactorClaims("recovery", factorID: nil)
            }
        return String(decoding: JSONValue.object(claims).serialized(), as: UTF8.self)
    }

    func authenticate(_ context: SignInContext) async throws -> SecondFactorService.Checked {
        // A sign-in held on one listener is finished there (checked before the code).
        try await service.check(answer, for: credential, on: context.surface)
    }

    func decide(_ proof: SecondFactorService.Checked, _ context: SignInContext) async throws -> SignInDecision {
        let link = proof.link.flatMap { $0.links ? $0 : nil }
        return SignInDecision(
            account: proof.account, change: link == nil ? .none : .linked,
            credential: SignInCredential(
                provider: proof.pending.signInProvider, subject: link?.identity.subject,
                email: link?.identity.email ?? proof.account.email, emailVerified: link != nil))
    }

    func commit(
        _ proof: SecondFactorService.Checked, session: SessionGrant, context: SignInContext
    ) async throws -> CommittedSignIn {
        let now = service.clock.now
        func event(_ action: AuditAction, _ provider: String) -> AuditEvent {
            AuditEvent(
                time: now, uid: proof.account.id, action: action, provider: provider, actor: .user,
                requestID: context.requestID)
        }
        var events = [event(.signIn, label)]
        if case .recoveryCode = proof.proof { events.append(event(.mfaRecoveryCodeUsed, "recovery")) }
        // A held link is made now, in the completion's transaction, with its audit event (its single-use mark was
        // spent by the hold); a returning identity's held provider token is kept now too.
        let link = proof.link
        let links = link?.links == true
        if let link, links { events.insert(event(.link, link.identity.provider.rawValue), at: 0) }
        let account: Account
        do {
            account = try await service.store.completeSecondFactor(
                pendingHash: proof.pending.credentialHash, proof: proof.proof, at: now,
                options: AccountWriteOptions(issuing: session, recording: events),
                clearingFailuresOf: SecondFactorService.lockoutKey(proof.account)
            ) { account in try link?.apply(to: &account, at: now) }
        } catch let error as AccountStoreError where error.code == .stale {
            // The factor was removed, or the step or code used, since the check: a wrong code.
            throw try await service.wrongCode(proof.pending.credentialHash)
        } catch let error as AccountStoreError where error.code == .notFound {
            throw SecondFactorError(.invalidPendingCredential, error.detail)  // spent, expired, or its account gone
        } catch let error as AccountStoreError where error.code == .disabled {
            throw AccountError(.userDisabled)
        } catch let error as AccountStoreError where error.code == .alreadyUsed {
            throw TokenError(.replayed)  // the held credential signed in meanwhile
        } catch let error as AccountStoreError where error.code == .alreadyExists {
            // The identity was linked to an account meanwhile: the link no longer applies.
            throw SecondFactorError(.invalidPendingCredential, "the held identity was linked meanwhile")
        }
        return CommittedSignIn(account: account, change: links ? .linked : .none)
    }
}
