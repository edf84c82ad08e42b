import BrokerModel
import BrokerStorage

/// Sign-in with email and password (contract section 4): the password is checked against the account's hash
/// (counted toward the lockout), then the sign-in is recorded with the session, upgrading an imported hash.
struct PasswordSignIn: SignInMethod {
    let email: String
    let password: String
    let accounts: AccountService

    var label: String { ProviderID.password.rawValue }

    func uid(of proof: AccountService.VerifiedPassword) -> AccountID? { proof.account.id }

    func authenticate(_ context: SignInContext) async throws -> AccountService.VerifiedPassword {
        try await accounts.verifyPassword(email: email, password: password)
    }

    func decide(_ proof: AccountService.VerifiedPassword, _ context: SignInContext) async throws -> SignInDecision {
        SignInDecision(
            account: proof.account, change: .none,
            credential: SignInCredential(provider: label, email: proof.account.email))
    }

    func commit(
        _ proof: AccountService.VerifiedPassword, session: SessionGrant, context: SignInContext
    ) async throws -> CommittedSignIn {
        let account = try await accounts.recordPasswordSignIn(proof, session: session, requestID: context.requestID)
        return CommittedSignIn(account: account, change: .none)
    }
}

/// An email and password sign-up (contract section 4): the email and password are checked and the password hashed
/// first; the account is created with the session in one transaction.
struct PasswordSignUp: SignInMethod {
    let email: String
    let password: String
    let displayName: String?
    let accounts: AccountService

    var label: String { ProviderID.password.rawValue }
    var refusalAction: AuditAction { .signUp }
    var counter: String { "broker_signups_total" }

    func authenticate(_ context: SignInContext) async throws -> Account {
        try await accounts.newPasswordAccount(email: email, password: password, displayName: displayName)
    }

    func decide(_ proof: Account, _ context: SignInContext) async throws -> SignInDecision {
        SignInDecision(
            account: nil, change: .created, credential: SignInCredential(provider: label, email: proof.email),
            newAccount: proof)
    }

    func commit(_ proof: Account, session: SessionGrant, context: SignInContext) async throws -> CommittedSignIn {
        let account = try await accounts.createPasswordAccount(proof, session: session, requestID: context.requestID)
        return CommittedSignIn(account: account, change: .created)
    }
}
