import Foundation

extension AccountService {
    /// The `email-password` mapping: the Kakao account's email selects the account (contract section 2).
    func signInByEmailPassword(_ signIn: ProviderSignIn) async throws -> SignInOutcome {
        let identity = signIn.identity
        return try await retryingRaces {
            let linked = try await store.account(provider: identity.provider, subject: identity.subject)
            let owner: Account? =
                if linked == nil, let email = identity.email { try await store.account(email: email) } else { nil }
            let matches = try await owner.asyncMap { try await passwordIsWorkaround($0, subject: identity.subject) } ?? false
            let decision = LinkingPolicy.decideEmailPassword(
                identity: identity, linked: linked, emailOwner: owner, passwordMatchesSubject: matches)
            return try await apply(decision, signIn: signIn)
        }
    }

    /// Whether `account`'s password is the Kakao id as the workaround stored it.
    private func passwordIsWorkaround(_ account: Account, subject: String) async throws -> Bool {
        guard let hash = account.passwordHash else { return false }
        for candidate in LinkingPolicy.workaroundPasswords(forSubject: subject)
        where try await passwords.verify(candidate, against: hash) {
            return true
        }
        return false
    }

    private func apply(_ decision: EmailPasswordDecision, signIn: ProviderSignIn) async throws -> SignInOutcome {
        let identity = signIn.identity
        let now = clock.now
        let linkedIdentity = Identity(
            provider: identity.provider, subject: identity.subject, email: identity.email, linkedAt: now)
        switch decision {
        case .signIn(let account):
            return try await signInExisting(account, signIn: signIn)
        case .emailRequired:
            throw AccountError(.emailRequired)
        case .create:
            // The credential the workaround would have made, kept (hashed) but never usable for sign-in.
            let derived = try await passwords.hash(identity.subject)
            let account = Account(
                id: AccountID.generate(), email: identity.email, emailVerified: identity.emailVerified,
                displayName: identity.displayName, photoURL: identity.photoURL, createdAt: now, lastSignInAt: now,
                identities: [linkedIdentity], passwordHash: derived, passwordDerived: true)
            try await store.create(account, options: signInOptions(signIn, .created, uid: account.id))
            return SignInOutcome(account: account, change: .created)
        case .link(let owner):
            let expectedHash = owner.passwordHash
            // Whoever knew the Kakao id could sign in to this account: its sessions end with the link.
            var linking = signInOptions(signIn, .linked, uid: owner.id)
            linking.revokeSessions = true
            let updated = try await store.update(id: owner.id, options: linking) { account in
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
