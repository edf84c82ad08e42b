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
