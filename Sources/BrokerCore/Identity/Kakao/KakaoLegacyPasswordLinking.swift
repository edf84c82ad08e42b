import Foundation

/// Kakao's `accountMapping: "email-password"` (contract section 2): the "email + Kakao user id as password"
/// workaround of apps built on Firebase email/password auth. The Kakao account's email selects the account;
/// the workaround's own account (a password that verifies as the Kakao id) is linked, its password retired.
struct KakaoLegacyPasswordLinking: LinkingStrategy {
    /// What to do with a Kakao identity that is linked to no account.
    enum Decision: Equatable, Sendable {
        /// The identity is linked already.
        case signIn(Account)
        /// No account holds the email: create one with an id-derived credential.
        case create
        /// The account's password is the Kakao id (the workaround's account): link, retiring the password.
        case link(Account)
        /// Another account holds the email.
        case conflict(Account)
        /// The Kakao account shares no email.
        case emailRequired
    }

    /// The mapping as a pure function. `passwordMatchesSubject` says whether the email owner's password verifies
    /// as `<id>` or `Optional(<id>)`.
    static func decide(
        identity: ExternalIdentity, linked: Account?, emailOwner: Account?, passwordMatchesSubject: Bool
    ) -> Decision {
        if let linked { return .signIn(linked) }
        guard identity.email != nil else { return .emailRequired }
        guard let owner = emailOwner else { return .create }
        if owner.identities.contains(where: { $0.provider == identity.provider && $0.subject == identity.subject }) {
            return .signIn(owner)
        }
        // Only the workaround's own account, holding nothing but that password, is linked: an account with any
        // identity may have been prepared by someone who knows the (public) Kakao id.
        return passwordMatchesSubject && owner.identities.isEmpty ? .link(owner) : .conflict(owner)
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
                if linked == nil, let email = identity.email { try await accounts.store.account(email: email) } else { nil }
            let matches = try await owner.asyncMap {
                try await passwordIsWorkaround($0, subject: identity.subject, accounts: accounts)
            } ?? false
            let decision = Self.decide(
                identity: identity, linked: linked, emailOwner: owner, passwordMatchesSubject: matches)
            return try await apply(decision, signIn: signIn, accounts: accounts)
        }
    }

    /// Whether `account`'s password is the Kakao id as the workaround stored it.
    private func passwordIsWorkaround(_ account: Account, subject: String, accounts: AccountService) async throws -> Bool {
        guard let hash = account.passwordHash else { return false }
        for candidate in Self.workaroundPasswords(forSubject: subject)
        where try await accounts.passwords.verify(candidate, against: hash) {
            return true
        }
        return false
    }

    private func apply(_ decision: Decision, signIn: SignInAttempt, accounts: AccountService) async throws -> SignInOutcome {
        let identity = signIn.identity
        let now = accounts.clock.now
        let linkedIdentity = Identity(
            provider: identity.provider, subject: identity.subject, email: identity.email, linkedAt: now)
        switch decision {
        case .signIn(let account):
            return try await accounts.signInExisting(account, signIn: signIn)
        case .emailRequired:
            throw ProviderError.kakaoEmailRequired
        case .create:
            // The credential the workaround would have made, kept (hashed) but never usable for sign-in.
            let derived = try await accounts.passwords.hash(identity.subject)
            let account = Account(
                id: AccountID.generate(), email: identity.email, emailVerified: identity.emailVerified,
                displayName: identity.displayName, photoURL: identity.photoURL, createdAt: now, lastSignInAt: now,
                identities: [linkedIdentity], passwordHash: derived, passwordDerived: true)
            try await accounts.store.create(account, options: accounts.signInOptions(signIn, .created, uid: account.id))
            return SignInOutcome(account: account, change: .created)
        case .link(let owner):
            let expectedHash = owner.passwordHash
            // Whoever knew the Kakao id could sign in to this account: its sessions end with the link.
            var linking = accounts.signInOptions(signIn, .linked, uid: owner.id)
            linking.revokeSessions = true
            linking.enqueuing = accounts.firebaseRevocation(owner.id, at: now)
            let updated = try await accounts.store.update(id: owner.id, options: linking) { account in
                guard !account.disabled else { throw AccountError(.userDisabled) }
                // What was checked above must still hold: otherwise decide again.
                guard account.passwordHash == expectedHash, account.identities.isEmpty else {
                    throw AccountStoreError(.notFound, "account changed")
                }
                account.identities.append(linkedIdentity)
                account.passwordDerived = true  // a Kakao id is no secret: it never signs anyone in again
                if identity.emailVerified { account.emailVerified = true }
                account.lastSignInAt = now
            }
            return SignInOutcome(account: updated, change: .linked)
        case .conflict(let owner):
            throw AccountError(
                .accountExistsWithDifferentCredential, existingProviders: LinkingPolicy.signInMethods(of: owner))
        }
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
