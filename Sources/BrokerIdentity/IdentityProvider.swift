public import BrokerModel

/// A sign-in provider: verifies a ``Credential`` and says who the user is.
///
/// Everything the broker knows about one provider lives in its folder: how its tokens are checked, its error
/// codes, its linking rule (``VerifiedIdentity/linking``), the domain other systems name it by, and (through the optional
/// requirements below) the webhook routes it mounts and what deleting an account asks of it.
public protocol IdentityProvider: Sendable {
    /// The provider's id: its key under `providers` in the config and its name in URLs (`naver`, `line`).
    var id: ProviderID { get }
    /// The field of the native sign-in body that carries an ID token (`idToken` unless the provider's own SDK
    /// calls it something else).
    var idTokenField: String { get }
    /// The kinds of credential ``verify(_:hints:)`` takes (an ID token, an access token): declared, so that no code
    /// finds them out with a cast.
    var credentialKinds: Set<CredentialKind> { get }
    /// Verifies `credential` (with `hints`), or throws ``ProviderError`` / ``TokenError``. Nothing is stored.
    func verify(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity
    /// The domain identity systems name this provider by (its own, such as `example.com`), nil when it has none:
    /// a listener that names identities by such ids names the others by the kind of credential that linked them.
    var domainID: String? { get }
}

extension IdentityProvider {
    /// `idToken`.
    public var idTokenField: String { "idToken" }

    /// None: the provider has no domain of its own.
    public var domainID: String? { nil }
}

extension ProviderError {
    /// The refusal of a credential kind the provider does not take.
    static func unsupported(_ kind: CredentialKind, by provider: ProviderID) -> ProviderError {
        ProviderError(
            .invalidRequest, "\(provider.rawValue) does not accept an \(kind == .idToken ? "ID" : "access") token")
    }
}

extension IdentityProvider {
    /// Verifies `credential` (``verify(_:hints:)``) and records its kind on the verified identity, so that an
    /// identity it links is stored with the kind that linked it. Every sign-in and link verifies through here.
    package func verifyRecordingKind(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity
    {
        var verified = try await verify(credential, hints: hints)
        verified.kind = credential.kind
        return verified
    }
}
