public import BrokerModel
import BrokerStorage
import Foundation

/// One way to prove who you are: a provider token, a password, a sign-up, a custom token, an email link. A method
/// fills in only its own part of a sign-in; ``SignInFlow/run(_:_:)`` runs the phases every sign-in shares.
///
/// Its three parts: ``authenticate(_:)`` verifies what the caller presented, writing at most what the check itself
/// must keep even when it fails (a password attempt counted toward the lockout); ``decide(_:_:)``
/// reads which account the sign-in reaches and what it will do to it (asked only when a second-factor or hooks
/// phase needs it); ``commit(_:session:context:)`` decides again inside one transaction and writes the account
/// change (found, created, linked, taken over) with the session, the single-use mark, the audit event and the
/// outbox jobs.
public protocol SignInMethod: Sendable {
    /// What ``authenticate(_:)`` proved, for ``commit(_:session:context:)``.
    associatedtype Proof: Sendable

    /// The method's name in metrics and audit events (a provider's id, `password`, `custom`, `emailLink`).
    var label: String { get }
    /// The audit action of a refusal: `sign_in`, or `sign_up` for a sign-up.
    var refusalAction: AuditAction { get }
    /// The metric the outcome is counted in: `broker_signins_total`, or `broker_signups_total` for a sign-up.
    var counter: String { get }
    /// Whether a refusal is counted and audited: false for one whose label came from the caller unchecked (an
    /// unknown provider's name).
    func countsRefusal(_ error: any Error) -> Bool
    /// The session's sign-in provider on `surface` (its ID tokens' `sign_in_provider`; the session's format may
    /// name it as its listener's clients expect).
    func sessionProvider(on surface: SessionSurface) -> String
    /// The session's sign-in provider for `proof` (default: ``sessionProvider(on:)``; a second factor's completion
    /// names the first factor's).
    func sessionProvider(_ proof: Proof, on surface: SessionSurface) -> String
    /// Claims the session's ID tokens carry besides the account's (JSON object text), if any.
    func sessionClaims(_ proof: Proof) -> String?
    /// The account a refusal after authentication concerns, when the proof names one.
    func uid(of proof: Proof) -> AccountID?
    /// How the method stands toward an account's second factor.
    var secondFactor: SecondFactorRule { get }

    /// Verifies what the caller presented. Writes nothing of the sign-in: only what the check must keep when it fails
    /// (a password attempt, counted toward the lockout before the password is checked).
    func authenticate(_ context: SignInContext) async throws -> Proof
    /// Reads the account the sign-in reaches and what it will do to it. Writes nothing; a refusal the commit would
    /// give for what it reads (a disabled account, another account's email) may be given here.
    func decide(_ proof: Proof, _ context: SignInContext) async throws -> SignInDecision
    /// Decides and writes the sign-in in one transaction, `session` stored with it.
    func commit(_ proof: Proof, session: SessionGrant, context: SignInContext) async throws -> CommittedSignIn
}

extension SignInMethod {
    /// `sign_in`.
    public var refusalAction: AuditAction { .signIn }
    /// `broker_signins_total`.
    public var counter: String { "broker_signins_total" }
    /// Every refusal counts.
    public func countsRefusal(_ error: any Error) -> Bool { true }
    /// The label.
    public func sessionProvider(on surface: SessionSurface) -> String { label }
    /// ``sessionProvider(on:)``.
    public func sessionProvider(_ proof: Proof, on surface: SessionSurface) -> String { sessionProvider(on: surface) }
    /// None.
    public func sessionClaims(_ proof: Proof) -> String? { nil }
    /// None.
    public func uid(of proof: Proof) -> AccountID? { nil }
    /// Asked.
    public var secondFactor: SecondFactorRule { .asked }
}

/// Who asks for a sign-in, and for which listener.
public struct SignInContext: Sendable {
    /// The request's id, stamped on the sign-in's audit events and log lines.
    public var requestID: String
    /// The listener the session is made for (its tokens' shape; it works only there).
    public var surface: SessionSurface

    /// Creates a context.
    public init(requestID: String, surface: SessionSurface = .native) {
        self.requestID = requestID
        self.surface = surface
    }
}

/// What a method's commit wrote.
public struct CommittedSignIn: Sendable {
    /// The account signed in to, as stored.
    public var account: Account
    /// What the sign-in did to it.
    public var change: SignInOutcome.Change
    /// The outbox jobs queued with the change (to wake the worker).
    public var jobs: [OutboxJob]

    /// Creates a record of a commit.
    public init(account: Account, change: SignInOutcome.Change, jobs: [OutboxJob] = []) {
        self.account = account
        self.change = change
        self.jobs = jobs
    }
}

/// What ``SignInFlow/run(_:_:)`` ends in.
public enum SignInStep: Sendable {
    /// Signed in: the session's tokens.
    case signedIn(SignInResult)
    /// The account has a second factor: nothing was stored but the pending credential that finishes the sign-in.
    case secondFactorRequired(PendingSecondFactor)

    /// The result of a completed sign-in; ``SecondFactorRequired`` when the sign-in waits for its second factor.
    public var result: SignInResult {
        get throws {
            switch self {
            case .signedIn(let result): return result
            case .secondFactorRequired(let pending): throw SecondFactorRequired(pending: pending)
            }
        }
    }
}

/// Why a new session is made for an account that is already signed in.
public enum RenewalReason: String, Sendable {
    /// Another provider was linked (a surface that answers a link with new tokens).
    case link
    /// The password changed (every other session ended in the change's transaction).
    case passwordChange
    /// A profile change asked for new tokens (`returnSecureToken`).
    case update
    /// A guest was upgraded in place (contract section 13).
    case upgrade
}
