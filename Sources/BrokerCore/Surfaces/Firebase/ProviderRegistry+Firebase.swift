/// How Firebase names the broker's providers: the one rule, used by the Firebase listener's ID tokens
/// (`firebase.identities`, `sign_in_provider`), its `accounts:lookup` (`providerUserInfo[].providerId`), its
/// `signInWithIdp` answers, its admin calls and the Firebase import and export (docs/firebase.md, "Provider ids").
extension ProviderRegistry {
    /// The Firebase id of `provider`: ONE per provider, whatever credential (ID token or access token) reached the
    /// identity, as Firebase names an OpenID Connect provider `oidc.<id>` however the user proved who they are.
    /// The id Firebase gives the provider itself (``IdentityProvider/firebaseProviderID``, a domain), else
    /// `oidc.<id>`. Identities store no credential kind, and need none.
    public static func firebaseID(of provider: any IdentityProvider) -> String {
        provider.firebaseProviderID ?? "oidc." + provider.id.rawValue
    }

    /// The Firebase id of provider `id` when it is enabled (``firebaseID(of:)-swift.type.method``); any other name
    /// (`password`, `custom`, a Firebase id already, a provider no longer enabled) unchanged.
    public func firebaseID(of id: ProviderID) -> String {
        provider(id).map(Self.firebaseID(of:)) ?? id.rawValue
    }

    /// The names by which Firebase's calls may refer to an enabled provider: its Firebase id, and, for one
    /// Firebase has no name of its own for, its own id (contract section 11's `providerId=<id>&access_token=…`;
    /// answers always name the Firebase id).
    public var firebaseNames: [String: ProviderID] {
        var names: [String: ProviderID] = [:]
        for provider in all {
            names[Self.firebaseID(of: provider)] = provider.id
            if provider.firebaseProviderID == nil { names[provider.id.rawValue] = provider.id }
        }
        return names
    }

    /// The enabled provider `signInWithIdp`'s `providerId` names for a credential of `kind`: by its Firebase id
    /// (either kind), or by its own id for an access token (contract section 11).
    func provider(firebaseName name: String, kind: CredentialKind) -> (any IdentityProvider)? {
        all.first { provider in
            Self.firebaseID(of: provider) == name
                || (kind == .accessToken && provider.firebaseProviderID == nil && provider.id.rawValue == name)
        }
    }
}
