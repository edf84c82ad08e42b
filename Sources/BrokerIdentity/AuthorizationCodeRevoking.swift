public import BrokerModel
public import Foundation

/// A provider that revokes, at its user's request, what an authorization code of that user grants: the app
/// re-authorizes the user with the provider and sends the fresh code (apps do so before they delete an account;
/// contract sections 10 and 11). The code is exchanged at once; the token it yields is revoked through the outbox,
/// as a deletion's revocation is.
public protocol AuthorizationCodeRevoking: IdentityProvider {
    /// Whether this provider's configuration can exchange codes (a client secret is configured).
    var revokesAuthorizationCodes: Bool { get }
    /// Exchanges `code` for the token of `identity`'s user and returns the outbox jobs that revoke it (their payload
    /// marked ``OutboxJob/secret``). A code the provider refuses, or one of another user, is
    /// ``ProviderError/Code/invalidToken``; the provider down is ``ProviderError/Code/unavailable``; nothing is
    /// stored either way.
    func revocationJobs(
        authorizationCode code: String, for identity: Identity, at date: Date
    ) async throws
        -> [OutboxJob]
}
