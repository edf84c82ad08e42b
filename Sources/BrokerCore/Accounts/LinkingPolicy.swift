public import BrokerModel

/// What to do with a verified provider identity, given what the store holds.
public enum LinkingDecision: Equatable, Sendable {
    /// The identity is linked already: sign in to that account.
    case signIn(Account)
    /// No account matches: create one. `claimEmail` is false when the email belongs to another account and
    /// the provider does not vouch for it, so the new account must not hold it.
    case create(claimEmail: Bool)
    /// Link the identity to this account (same verified email, linking by email allowed).
    case link(Account)
    /// A verified provider email matches this account whose email was never verified: the identity takes it
    /// over after its password, other identities and sessions are removed.
    case takeOver(Account)
    /// Another account holds the email: 409 with its providers.
    case conflict(Account)
}

/// The account-linking rules of the contract's section 2, as a pure function.
public enum LinkingPolicy {
    /// Decides for `identity`, given the account it is linked to (`linked`) and the account holding its email
    /// (`emailOwner`).
    public static func decide(
        identity: ExternalIdentity, linked: Account?, emailOwner: Account?, linkByVerifiedEmail: Bool
    ) -> LinkingDecision {
        if let linked { return .signIn(linked) }
        guard let owner = emailOwner, identity.email != nil else { return .create(claimEmail: true) }
        // The two look-ups are not one snapshot: a concurrent first sign-in may have linked this very identity
        // to the email's account between them.
        if owner.identities.contains(where: { $0.provider == identity.provider && $0.subject == identity.subject }) {
            return .signIn(owner)
        }
        guard identity.emailVerified else {
            // An unverified provider email never links to anything, nor takes an email someone holds.
            return .create(claimEmail: false)
        }
        if !owner.emailVerified { return .takeOver(owner) }
        // One identity per provider and account: a second account of the same provider with the same email conflicts.
        return linkByVerifiedEmail && owner.identity(identity.provider) == nil ? .link(owner) : .conflict(owner)
    }

    /// The sign-in methods of an account, as reported with a conflict (`existingProviders`).
    public static func signInMethods(of account: Account) -> [String] {
        var methods = account.identities.map(\.provider.rawValue)
        if account.hasUsablePassword { methods.append("password") }
        return methods.sorted()
    }
}
