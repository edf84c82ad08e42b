extension Account {
    /// Stores `token` (sealed) on the linked identity (provider, subject), replacing the one held before; nil
    /// changes nothing.
    mutating func keepProviderToken(_ token: String?, for identity: ExternalIdentity) {
        guard let token,
            let index = identities.firstIndex(where: { $0.provider == identity.provider && $0.subject == identity.subject })
        else { return }
        identities[index].providerToken = token
    }
}

extension Account {
    /// Lets a sign-in through `provider` in: an enabled account, or one that `provider`'s "the user left" event
    /// disabled (enabled again here: the user came back). Any other disabled account (an administrator's
    /// disable) is refused with `userDisabled`.
    mutating func admitSignIn(through provider: ProviderID) throws {
        guard disabled else { return }
        guard disabledBy == provider else { throw AccountError(.userDisabled) }
        disabled = false
        disabledBy = nil
    }
}
