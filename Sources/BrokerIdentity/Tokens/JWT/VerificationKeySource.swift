public import BrokerModel

/// Where an ``IDTokenVerifier`` finds the public key for a `kid`, whatever its algorithm.
public protocol VerificationKeySource: Sendable {
    /// The key with id `kid`, or nil; throws when the keys cannot be had at all.
    func verificationKey(id kid: KeyID) async throws -> ProviderKey?
}
