import BrokerCore
public import BrokerIdentity
public import BrokerModel
/// How Firebase names the broker's identities: the one rule (contract section 11; docs/firebase.md, "Provider
/// ids"), used by the Firebase listener's ID tokens (`firebase.identities`, `sign_in_provider`), its
/// `accounts:lookup` (`providerUserInfo[].providerId`), its `signInWithIdp` answers, its admin calls and the
/// Firebase import and export.
extension ProviderRegistry {
    /// The Firebase id of an identity of `provider` linked by a credential of `kind`: the id Firebase gives the
    /// provider itself (``IdentityProvider/domainID``, a domain) when it has one; else `<id>` for an
    /// access-token identity and `oidc.<id>` for an ID-token one. A legacy identity (stored before its kind was, nil)
    /// is `<id>` when the provider takes only access tokens, else `oidc.<id>`.
    public static func firebaseID(of provider: any IdentityProvider, kind: CredentialKind?) -> String {
        if let own = provider.domainID { return own }
        let accessToken = kind == .accessToken || (kind == nil && !provider.credentialKinds.contains(.idToken))
        return accessToken ? provider.id.rawValue : "oidc." + provider.id.rawValue
    }

    /// The Firebase id of an identity of provider `id` linked by a credential of `kind`, when the provider is
    /// a config file's enabled one (``firebaseID(of:kind:)-swift.type.method``); for another linked by an ID token
    /// (a provider managed at run time, or one no longer enabled) `oidc.<id>`; any other name (`password`,
    /// `custom`, an access-token identity or one of unknown kind) unchanged.
    public func firebaseID(of id: ProviderID, kind: CredentialKind?) -> String {
        if let provider = provider(id) { return Self.firebaseID(of: provider, kind: kind) }
        return kind == .idToken ? "oidc." + id.rawValue : id.rawValue
    }

    /// The Firebase id of `identity`, by the kind of credential that linked it.
    public func firebaseID(of identity: Identity) -> String { firebaseID(of: identity.provider, kind: identity.kind) }

    /// The names by which Firebase's admin calls may refer to an enabled provider: the id Firebase gives it, or
    /// else both `oidc.<id>` and `<id>` (an identity of either kind).
    public var firebaseNames: [String: ProviderID] {
        var names: [String: ProviderID] = [:]
        for provider in all {
            if let own = provider.domainID {
                names[own] = provider.id
            } else {
                names["oidc." + provider.id.rawValue] = provider.id
                names[provider.id.rawValue] = provider.id
            }
        }
        return names
    }

    /// The kind of credential an identity of `provider` named `name` by Firebase was linked with: an ID token for
    /// `oidc.<id>`, an access token for `<id>`; nil for another name (the id Firebase gives the provider itself, a
    /// name `--map-provider` maps), which does not say.
    public static func credentialKind(firebaseName name: String, provider: ProviderID) -> CredentialKind? {
        if name == "oidc." + provider.rawValue { return .idToken }
        return name == provider.rawValue ? .accessToken : nil
    }

    /// The enabled provider `signInWithIdp`'s `providerId` names for a credential of `kind`: the one whose identity
    /// that credential would link is named `name` (``firebaseID(of:kind:)-swift.type.method``): the id Firebase
    /// gives the provider, `oidc.<id>` with an ID token, `<id>` with an access token (contract section 11).
    func provider(firebaseName name: String, kind: CredentialKind) -> (any IdentityProvider)? {
        all.first { Self.firebaseID(of: $0, kind: kind) == name }
    }

    /// The enabled provider `signInWithIdp`'s `providerId` names for a credential of `kind`
    /// (``provider(firebaseName:kind:)``), else, for `oidc.<id>` with an ID token, the enabled provider `<id>`
    /// managed at run time (read from the store now).
    func resolve(firebaseName name: String, kind: CredentialKind) async throws -> (any IdentityProvider)? {
        if let provider = provider(firebaseName: name, kind: kind) { return provider }
        guard kind == .idToken, name.hasPrefix("oidc."), case let id = ProviderID(String(name.dropFirst(5))),
            provider(id) == nil
        else { return nil }
        return try await resolve(id)
    }

    /// The enabled provider a session's stored sign-in method names: by its own id (a method's label) or by any of
    /// its Firebase ids (``firebaseNames``; a session stored by an earlier version).
    func provider(sessionName name: String) -> (any IdentityProvider)? {
        firebaseNames[name].flatMap { provider($0) }
    }
}
