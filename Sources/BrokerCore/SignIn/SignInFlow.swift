import Foundation

/// The sign-in use case, once for every surface: resolve the provider, verify the credential, grant a session,
/// decide and link in one transaction with the session and audit rows, mint the tokens, count the outcome.
///
/// A returning user's sign-in is one transaction (``AccountService/signIn(_:)``'s first step). A refused sign-in
/// stores nothing but its audit event, recorded after the refusal.
public struct SignInFlow: Sendable {
    /// The enabled providers.
    public let providers: ProviderRegistry
    let accounts: AccountService
    let sessions: SessionService
    let auditor: Auditor
    let metrics: Metrics

    /// Creates the flow.
    public init(
        providers: ProviderRegistry, accounts: AccountService, sessions: SessionService, auditor: Auditor,
        metrics: Metrics
    ) {
        self.providers = providers
        self.accounts = accounts
        self.sessions = sessions
        self.auditor = auditor
        self.metrics = metrics
    }

    /// The enabled provider `id`, or ``SignInError/Code/providerNotEnabled``.
    public func provider(_ id: ProviderID) throws -> any IdentityProvider {
        guard let provider = providers.provider(id) else { throw SignInError(.providerNotEnabled) }
        return provider
    }

    /// Signs in with a provider credential.
    public func signIn(_ request: SignInRequest) async throws -> SignInResult {
        let name = request.provider.rawValue
        do {
            let provider = try provider(request.provider)
            let verified = try await provider.verify(request.credential, hints: request.hints)
            // A Firebase session names its method as Firebase does (`firebaseProviderID`), in its tokens and refreshes.
            let method = request.surface == .firebase ? provider.firebaseProviderID(for: request.credential.kind) : name
            let (refreshToken, grant) = sessions.grant(provider: method, surface: request.surface)
            let outcome = try await accounts.signIn(
                SignInAttempt(verified, session: grant, requestID: request.requestID))
            let tokens = try await sessions.tokens(for: outcome.account, grant: grant, refreshToken: refreshToken)
            metrics.increment(
                "broker_signins_total", labels: ["provider": name, "outcome": outcome.isNewUser ? "created" : "success"])
            return SignInResult(account: outcome.account, change: outcome.change, tokens: tokens, signInProvider: name)
        } catch {
            // An unknown provider is not counted: its name comes from the caller.
            guard providers.provider(request.provider) != nil else { throw error }
            let code = SignInFlow.outcomeCode(error)
            metrics.increment("broker_signins_total", labels: ["provider": name, "outcome": code])
            await auditor.record(.signIn, uid: nil, provider: name, outcome: code, requestID: request.requestID)
            throw error
        }
    }

    /// Creates an email and password account and signs it in (contract section 4).
    /// `surface` is the listener the session is for.
    public func signUp(
        email: String, password: String, displayName: String?, requestID: String, surface: SessionSurface = .native
    ) async throws -> SignInResult {
        let provider = ProviderID.password.rawValue
        do {
            let (refreshToken, grant) = sessions.grant(provider: provider, surface: surface)
            let account = try await accounts.signUp(
                email: email, password: password, displayName: displayName, session: grant, requestID: requestID)
            let tokens = try await sessions.tokens(for: account, grant: grant, refreshToken: refreshToken)
            metrics.increment("broker_signups_total")
            return SignInResult(account: account, change: .created, tokens: tokens, signInProvider: provider)
        } catch {
            let code = SignInFlow.outcomeCode(error)
            await auditor.record(.signUp, uid: nil, provider: provider, outcome: code, requestID: requestID)
            throw error
        }
    }

    /// Signs in with email and password (contract section 4).
    /// `surface` is the listener the session is for.
    public func signIn(
        email: String, password: String, requestID: String, surface: SessionSurface = .native
    ) async throws -> SignInResult {
        let provider = ProviderID.password.rawValue
        do {
            let (refreshToken, grant) = sessions.grant(provider: provider, surface: surface)
            let account = try await accounts.passwordSignIn(
                email: email, password: password, session: grant, requestID: requestID)
            let tokens = try await sessions.tokens(for: account, grant: grant, refreshToken: refreshToken)
            metrics.increment("broker_signins_total", labels: ["provider": provider, "outcome": "success"])
            return SignInResult(account: account, change: .none, tokens: tokens, signInProvider: provider)
        } catch {
            let code = SignInFlow.outcomeCode(error)
            metrics.increment("broker_signins_total", labels: ["provider": provider, "outcome": code])
            await auditor.record(.signIn, uid: nil, provider: provider, outcome: code, requestID: requestID)
            throw error
        }
    }

    /// Links another provider's identity to the signed-in account `uid` (its single-use mark recorded with the
    /// link), and records the `link` event.
    public func link(_ uid: AccountID, _ request: SignInRequest) async throws -> Account {
        let provider = try provider(request.provider)
        let verified = try await provider.verify(request.credential, hints: request.hints)
        let linked = try await accounts.link(uid, verified)
        await auditor.record(.link, uid: uid, provider: provider.id.rawValue, requestID: request.requestID)
        return linked
    }

    /// The contract's code for a refused sign-in (section 6), as metrics and audit events name outcomes whatever
    /// surface carried the request.
    static func outcomeCode(_ error: any Error) -> String { APIError.mapping(error)?.code ?? "INTERNAL" }
}

extension ProviderID {
    /// The email and password sign-in method.
    public static let password = ProviderID("password")
}
