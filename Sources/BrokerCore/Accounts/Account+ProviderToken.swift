import BrokerModel

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
    /// disabled (enabled again here when `enabling`: the user came back; else ``SignInEnables`` is thrown, so the
    /// sign-in is written again with its `enable` audit event). Any other disabled account (an administrator's
    /// disable) is refused with `userDisabled`.
    mutating func admitSignIn(through provider: ProviderID, enabling: Bool) throws {
        guard disabled else { return }
        guard disabledBy == provider else { throw AccountError(.userDisabled) }
        guard enabling else { throw SignInEnables() }
        disabled = false
        disabledBy = nil
    }
}

/// Thrown inside a sign-in's transaction (which then writes nothing) when the sign-in would enable an account its
/// provider disabled: the sign-in is made again recording the `enable` event with it. Rare, so the returning
/// sign-in's common path carries no extra event.
struct SignInEnables: Error {}
