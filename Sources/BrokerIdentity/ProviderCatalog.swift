public import BrokerModel

/// Builds one provider from its config entry, validating the entry once, at start.
public protocol IdentityProviderFactory {
    /// The entry's `type` this factory builds (an entry's `type` defaults to its key).
    static var type: String { get }
    /// Builds the provider named `id`; throws ``ConfigError`` naming the bad field.
    static func make(id: ProviderID, config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider
    /// What starts but is probably wrong in an entry that builds (a placeholder left in it); none by default.
    static func warnings(config: ConfigReader) -> [ConfigError]
}

extension IdentityProviderFactory {
    /// No warnings.
    public static func warnings(config: ConfigReader) -> [ConfigError] { [] }
}

/// The provider types the broker can build: a config entry's `type` mapped to its factory. One type may serve
/// several entries (each with its own id); adding a provider is its folder plus one line in the catalog.
public struct ProviderCatalog: Sendable {
    nonisolated(unsafe) private let factories: [String: any IdentityProviderFactory.Type]

    /// A catalog of `factories`; a type listed twice keeps the last.
    public init(_ factories: [any IdentityProviderFactory.Type]) {
        var byType: [String: any IdentityProviderFactory.Type] = [:]
        for factory in factories { byType[factory.type] = factory }
        self.factories = byType
    }

    /// The factory for `type`.
    public func factory(type: String) -> (any IdentityProviderFactory.Type)? { factories[type] }

    /// The known types, sorted.
    public var types: [String] { factories.keys.sorted() }
}
