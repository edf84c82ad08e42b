public import BrokerIdentity
public import BrokerModel
package import BrokerStorage
import Foundation

/// The OpenID Connect providers managed at run time (``StoredOIDCProvider``, kept in the database), as sign-in
/// finds them: each look-up reads the provider's row, so a provider created, changed, disabled or deleted on any
/// instance counts on every instance at its next sign-in (the contract's "within 10 s" with no delay at all).
///
/// Each is a ``GenericOIDCProvider`` of the row's `issuer` whose tokens must carry its `clientID` as audience,
/// signed with RS256, the nonce optional, the email never vouched for (the
/// provider's `email_verified` is not trusted: an issuer added at run time links no account by its address). The
/// built provider, and so its discovery document and keys, is kept while the row's issuer and client id stay
/// the same: discovery happens at its first sign-in, through the same document cache as a config-file provider's.
public final class StoredOIDCProviders: RuntimeProviders, @unchecked Sendable {
    private let store: any ProviderConfigStore
    private let context: ProviderContext
    private let lock = NSLock()
    /// The providers built, by id, with the issuer and client id they were built for.
    private var built: [String: (issuer: String, clientID: String, provider: GenericOIDCProvider)] = [:]

    /// Finds the providers in `store`, building each with `context`.
    package init(store: any ProviderConfigStore, context: ProviderContext) {
        self.store = store
        self.context = context
    }

    /// The enabled stored provider `id`, nil when none is stored or it is disabled.
    public func provider(_ id: ProviderID) async throws -> (any IdentityProvider)? {
        guard let row = try await store.providerConfig(id: id.rawValue), row.enabled else {
            _ = lock.withLock { built.removeValue(forKey: id.rawValue) }
            return nil
        }
        return lock.withLock {
            if let kept = built[row.id], kept.issuer == row.issuer, kept.clientID == row.clientID {
                return kept.provider
            }
            let provider = GenericOIDCProvider(
                id: id, issuer: row.issuer, audiences: [row.clientID], algorithms: [.rs256], nonce: .optional,
                trustEmail: false, context: context)
            built[row.id] = (row.issuer, row.clientID, provider)
            return provider
        }
    }
}
