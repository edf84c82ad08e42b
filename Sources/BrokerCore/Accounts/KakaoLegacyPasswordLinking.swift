import BrokerIdentity
public import BrokerModel
import BrokerStorage
import Foundation

/// Kakao's `accountMapping: "email-password"` (contract section 2): the "email + Kakao user id as password"
/// workaround of apps built on a hosted email/password auth. The Kakao account's email selects the account. An
/// imported workaround account (its imported password verifies as the Kakao id) is linked and its password
/// deleted; otherwise the general pre-hijack rule applies, or the sign-in conflicts.
struct KakaoLegacyPasswordLinking: LinkingStrategy {
    /// What to do with a Kakao identity that is linked to no account.
    enum Decision: Equatable, Sendable {
        /// The workaround's imported account (its password is the Kakao id): link it, deleting the password.
        case legacyLink(Account)
        /// What the general rules do: sign in, create (with no password), take over, or conflict.
        case general(LinkingDecision)
        /// The Kakao account shares no email.
        case emailRequired
    }

    /// The mapping as a pure function. `passwordMatchesSubject` says whether the email owner's password verifies
    /// as `<id>` or `Optional(<id>)`; it is only asked for a ``isWorkaroundCandidate(_:)`` account.
    static func decide(
        identity: ExternalIdentity, linked: Account?, emailOwner: Account?, passwordMatchesSubject: Bool
    ) -> Decision {
        if let linked { return .general(.signIn(linked)) }
        guard identity.email != nil else { return .emailRequired }
        guard let owner = emailOwner else { return .general(.create(claimEmail: true)) }
        if owner.identities.contains(where: { $0.provider == identity.provider && $0.subject == identity.subject }) {
            return .general(.signIn(owner))
        }
        // The legacy match first: only an imported account can be the workaround's own.
        if isWorkaroundCandidate(owner, provider: identity.provider), passwordMatchesSubject {
            return .legacyLink(owner)
        }
        // Then the pre-hijack rule: Kakao vouches for the email, the account never proved it.
        if identity.emailVerified, !owner.emailVerified { return .general(.takeOver(owner)) }
        return .general(.conflict(owner))
    }

    /// Whether `account` may be the workaround's account: imported (a look-alike made through `/v1/signup` by
    /// someone who knows the email and the public Kakao id never is), holding a password and no identity of
    /// `provider` yet. Identities linked since the import may belong to whoever signed in with the public id before
    /// its owner came: the legacy link removes them (``link(_:signIn:accounts:)``).
    static func isWorkaroundCandidate(_ account: Account, provider: ProviderID) -> Bool {
        account.origin == .import && account.password?.isDerived == false
            && account.identity(provider) == nil
    }

    /// Whether `identity` of an imported account was linked after the import: later than the account's creation
    /// time, which an import gives every identity it brings (the export's `createdAt`, or the time of the import).
    static func wasLinkedSinceImport(_ identity: Identity, of account: Account) -> Bool {
        identity.linkedAt > account.createdAt
    }

    /// The passwords the widely copied workaround stored for Kakao user `subject`: the id itself, and the
    /// literal `Optional(<id>)` that interpolating a Swift optional produced.
    static func workaroundPasswords(forSubject subject: String) -> [String] {
        [subject, "Optional(\(subject))"]
    }

    func signInUnlinked(_ signIn: SignInAttempt, accounts: AccountService) async throws -> SignInOutcome {
        let identity = signIn.identity
        return try await accounts.retryingRaces {
            let linked = try await accounts.store.account(provider: identity.provider, subject: identity.subject)
            let owner: Account? =
                if linked == nil, let email = identity.email { try await accounts.store.account(email: email) } else {
                    nil
                }
            var matches = false
            if let owner, Self.isWorkaroundCandidate(owner, provider: identity.provider) {
                matches = try await passwordIsWorkaround(owner, subject: identity.subject, accounts: accounts)
            }
            switch Self.decide(identity: identity, linked: linked, emailOwner: owner, passwordMatchesSubject: matches) {
            case .general(let decision): return try await accounts.apply(decision, signIn: signIn)
            case .emailRequired: throw ProviderError.kakaoEmailRequired
            case .legacyLink(let owner): return try await link(owner, signIn: signIn, accounts: accounts)
            }
        }
    }

    /// Whether `account`'s password is the Kakao id as the workaround stored it.
    private func passwordIsWorkaround(
        _ account: Account, subject: String, accounts: AccountService
    ) async throws -> Bool {
        guard let hash = account.password?.hash else { return false }
        for candidate in Self.workaroundPasswords(forSubject: subject)
        where try await accounts.passwords.verify(candidate, against: hash) {
            return true
        }
        return false
    }

    /// Links the Kakao identity to the workaround's account, keeping its uid, deleting the id-derived password,
    /// removing the identities linked since the import and ending every earlier session (beyond the broker's too), as a
    /// takeover does: whoever knew the public id could sign in with it (contract section 2).
    private func link(_ owner: Account, signIn: SignInAttempt, accounts: AccountService) async throws -> SignInOutcome {
        let identity = signIn.identity
        let now = accounts.clock.now
        let expectedHash = owner.password?.hash
        var linking = accounts.signInOptions(signIn, .linked, uid: owner.id)
        linking.revokeSessions = true
        linking.cutsOffCustomTokens = true
        linking.removesSecondFactors = true
        linking.enqueuing = accounts.revocationJobs(owner.id, at: now)
        let updated = try await accounts.store.update(id: owner.id, options: linking) { account in
            guard !account.disabled else { throw AccountError(.userDisabled) }
            // What was checked above must still hold: otherwise decide again.
            guard account.password?.hash == expectedHash, Self.isWorkaroundCandidate(account, provider: identity.provider)
            else { throw AccountStoreError(.notFound, "account changed") }
            let created = account
            account.identities.removeAll { Self.wasLinkedSinceImport($0, of: created) }
            account.identities.append(
                Identity(
                    provider: identity.provider, subject: identity.subject, email: identity.email, linkedAt: now,
                    kind: signIn.verified.kind))
            account.password = nil
            if identity.emailVerified { account.emailVerified = true }
            account.lastSignInAt = now
        }
        return SignInOutcome(account: updated, change: .linked)
    }
}

extension LinkingRule {
    /// The strategies of the built-in providers' rules.
    public static let builtInStrategies: [LinkingRule: any LinkingStrategy] = [
        .kakaoLegacyPassword: KakaoLegacyPasswordLinking()
    ]
}
