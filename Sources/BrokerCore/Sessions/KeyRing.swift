public import BrokerModel
package import BrokerStorage
public import Foundation

/// The broker's signing keys: the newest active key signs; every key whose tokens may still be alive is
/// published. Keys live in the store, so they survive restarts and are shared by instances on one database:
/// each instance reloads them every minute, and at once when asked for a `kid` it does not know, so a key
/// rotated by one instance signs and verifies at every other within a minute.
public actor KeyRing {
    /// How often the keys are reloaded from the store.
    public static let reloadInterval: TimeInterval = 60
    /// The shortest interval between reloads caused by unknown `kid`s.
    public static let unknownKeyReloadInterval: TimeInterval = 1

    private let store: any SigningKeyStore
    private let clock: any Clock
    private let algorithm: SigningAlgorithm
    private let tokenLifetime: TimeInterval
    private var keys: [SigningKey] = []
    private var loadedAt = Date.distantPast

    /// Creates a key ring; call ``load()`` before use.
    package init(store: any SigningKeyStore, clock: any Clock, algorithm: SigningAlgorithm, tokenLifetime: TimeInterval) {
        self.store = store
        self.clock = clock
        self.algorithm = algorithm
        self.tokenLifetime = tokenLifetime
    }

    /// Loads the stored keys, making the first one if there is none.
    public func load() async throws {
        var stored = try await store.signingKeys()
        if !stored.contains(where: { $0.retiredAt == nil }) {
            // Another instance starting on the same empty database may store its key first: then this one
            // is not stored, and both sign with the winner's.
            _ = try await store.insertFirstSigningKey(try SigningKey.generate(algorithm, at: clock.now))
            stored = try await store.signingKeys()
        }
        adopt(try stored.map(parse))
    }

    /// Reloads the stored keys (keys already parsed are kept, not parsed again).
    private func reload() async throws {
        loadedAt = clock.now
        adopt(try await store.signingKeys().map(parse))
    }

    private func parse(_ stored: StoredSigningKey) throws -> SigningKey {
        if let known = keys.first(where: { $0.id == stored.id && $0.retiredAt == stored.retiredAt }) { return known }
        return try SigningKey(stored: stored)
    }

    private func adopt(_ loaded: [SigningKey]) {
        keys = loaded
        loadedAt = clock.now
    }

    /// Reloads when the keys are older than ``reloadInterval``; a failed reload keeps the keys in hand.
    private func reloadIfStale() async {
        guard clock.now.timeIntervalSince(loadedAt) >= KeyRing.reloadInterval else { return }
        try? await reload()
    }

    /// Retires the signing key and makes a new one; the old one stays published until its tokens expire.
    public func rotate() async throws {
        let now = clock.now
        try await store.rotateSigningKey(to: try SigningKey.generate(algorithm, at: now), at: now)
        try await reload()
    }

    /// The key that signs new tokens: the newest active one.
    public func current() async throws -> SigningKey {
        await reloadIfStale()
        if !keys.contains(where: { $0.retiredAt == nil }) { try? await reload() }
        guard let key = keys.last(where: { $0.retiredAt == nil }) else {
            throw AccountStoreError(.unavailable, "no signing key loaded")
        }
        return key
    }

    /// The keys to publish: active ones, and retired ones whose tokens may not have expired yet (an instance
    /// that has not reloaded may sign with a retired key for up to ``reloadInterval`` after its retirement).
    public func published() async -> [SigningKey] {
        await reloadIfStale()
        let now = clock.now
        return keys.filter { key in
            guard let retired = key.retiredAt else { return true }
            return retired + KeyRing.reloadInterval + tokenLifetime > now
        }
    }

    /// The published key `kid`, if any; an unknown `kid` reloads the keys (at most once a second), since
    /// another instance may have rotated.
    public func key(id kid: KeyID) async -> SigningKey? {
        if let key = await published().first(where: { $0.id == kid }) { return key }
        guard clock.now.timeIntervalSince(loadedAt) >= KeyRing.unknownKeyReloadInterval else { return nil }
        try? await reload()
        return await published().first { $0.id == kid }
    }
}
