import Foundation

/// The broker's signing keys: the newest active key signs; every key whose tokens may still be alive is
/// published. Keys live in the store, so they survive restarts and are shared by instances on one database.
public actor KeyRing {
    private let store: any SigningKeyStore
    private let clock: any Clock
    private let algorithm: SigningAlgorithm
    private let tokenLifetime: TimeInterval
    private var keys: [SigningKey] = []

    /// Creates a key ring; call ``load()`` before use.
    public init(store: any SigningKeyStore, clock: any Clock, algorithm: SigningAlgorithm, tokenLifetime: TimeInterval) {
        self.store = store
        self.clock = clock
        self.algorithm = algorithm
        self.tokenLifetime = tokenLifetime
    }

    /// Loads the stored keys, making the first one if there is none.
    public func load() async throws {
        var stored = try await store.signingKeys()
        if !stored.contains(where: { $0.retiredAt == nil }) {
            try await store.insertSigningKey(try SigningKey.generate(algorithm, at: clock.now))
            stored = try await store.signingKeys()
        }
        keys = try stored.map(SigningKey.init(stored:))
    }

    /// Retires the signing key and makes a new one; the old one stays published until its tokens expire.
    public func rotate() async throws {
        let now = clock.now
        for key in keys where key.retiredAt == nil { try await store.retireSigningKey(id: key.id, at: now) }
        try await store.insertSigningKey(try SigningKey.generate(algorithm, at: now))
        keys = try await store.signingKeys().map(SigningKey.init(stored:))
    }

    /// The key that signs new tokens: the newest active one.
    public func current() throws -> SigningKey {
        guard let key = keys.last(where: { $0.retiredAt == nil }) else {
            throw AccountStoreError(.unavailable, "no signing key loaded")
        }
        return key
    }

    /// The keys to publish: active ones, and retired ones whose tokens may not have expired yet.
    public func published() -> [SigningKey] {
        let now = clock.now
        return keys.filter { key in
            guard let retired = key.retiredAt else { return true }
            return retired + tokenLifetime > now
        }
    }

    /// The published key `kid`, if any.
    public func key(id kid: String) -> SigningKey? {
        published().first { $0.id == kid }
    }
}
