public import BrokerModel

/// The enabled providers, each built and validated from its config entry at start, and (once
/// ``attaching(stored:)`` gave them) the OpenID Connect providers managed at run time, found by ``resolve(_:)``.
public struct ProviderRegistry: Sendable {
    private let providers: [ProviderID: any IdentityProvider]
    /// The providers managed at run time; nil: none.
    public private(set) var stored: (any RuntimeProviders)?

    /// Ids the broker keeps for itself: no provider may be called so.
    public static let reservedIDs: Set<String> = ["password", "custom", "phone", "email", "oidc", "anonymous"]

    /// Builds every enabled provider from the config's `providers` entries (by name) with `catalog`'s factories;
    /// throws ``ConfigError`` naming the first bad field.
    public init(entries: [String: ConfigReader], catalog: ProviderCatalog, context: ProviderContext) throws {
        var providers: [ProviderID: any IdentityProvider] = [:]
        for name in entries.keys.sorted() {
            guard let entry = entries[name] else { continue }
            guard ProviderRegistry.isValidID(name) else {
                // A case slip (an id with capitals) names the id it was meant to be.
                let hint = ProviderRegistry.isValidID(name.lowercased()) ? " (did you mean \"\(name.lowercased())\"?)" : ""
                throw ConfigError(
                    field: entry.path, "is not a provider id (a-z, 0-9 and -, starting with a letter, at most 32)\(hint)")
            }
            guard !ProviderRegistry.reservedIDs.contains(name) else {
                throw ConfigError(field: entry.path, "is a reserved name")
            }
            let type = try entry.optionalString("type") ?? name
            guard let factory = catalog.factory(type: type) else {
                let field = entry.members["type"] == nil ? entry.path : entry.field("type")
                throw ConfigError(field: field, "unknown provider type (known: \(catalog.types.joined(separator: ", ")))")
            }
            guard try entry.bool("enabled", default: true) else { continue }
            providers[ProviderID(name)] = try factory.make(id: ProviderID(name), config: entry, context: context)
        }
        self.providers = providers
    }

    /// Wraps providers built elsewhere; for tests.
    public init(providers: [any IdentityProvider]) {
        var byID: [ProviderID: any IdentityProvider] = [:]
        for provider in providers { byID[provider.id] = provider }
        self.providers = byID
    }

    /// The enabled config-file provider named `id`, nil when it is unknown or disabled.
    public func provider(_ id: ProviderID) -> (any IdentityProvider)? { providers[id] }

    /// The enabled providers, by id.
    public var all: [any IdentityProvider] { enabled.compactMap { providers[$0] } }
    /// These providers, and the ones managed at run time that `stored` finds.
    public func attaching(stored: any RuntimeProviders) -> ProviderRegistry {
        var registry = self
        registry.stored = stored
        return registry
    }

    /// The provider sign-in uses for `id`: the config file's when it has one (a stored provider never takes its
    /// id), else the enabled stored one, read from the store now; nil when neither is.
    public func resolve(_ id: ProviderID) async throws -> (any IdentityProvider)? {
        if let provider = providers[id] { return provider }
        guard let stored, ProviderRegistry.isValidID(id.rawValue) else { return nil }
        return try await stored.provider(id)
    }


    /// Lets every ``ProviderPrefetching`` provider fetch what it needs, all at once; returns when each has tried
    /// (each fetch is bounded by the provider's own timeout). The broker's services start it in the background
    /// when they are built (`serve`, the harnesses), without waiting for it; `check-config` never calls it.
    public func prefetch() async {
        await withTaskGroup(of: Void.self) { group in
            for provider in providers.values {
                guard let prefetching = provider as? any ProviderPrefetching else { continue }
                group.addTask { await prefetching.prefetch() }
            }
        }
    }

    /// The names of the enabled providers.
    public var enabled: [ProviderID] { providers.keys.sorted { $0.rawValue < $1.rawValue } }

    /// Whether `name` matches `^[a-z][a-z0-9-]{0,31}$`.
    package static func isValidID(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (1...32).contains(bytes.count), (0x61...0x7A).contains(first) else { return false }
        return bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}

/// Providers managed at run time (the admin API's OpenID Connect providers), found at each sign-in.
public protocol RuntimeProviders: Sendable {
    /// The enabled provider `id`, as it is now; nil when there is none.
    func provider(_ id: ProviderID) async throws -> (any IdentityProvider)?
}
