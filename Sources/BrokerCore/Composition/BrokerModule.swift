public import BrokerIdentity
public import BrokerModel

/// A module outside the core that plugs into the composition through the seams the core names: the executable picks
/// the modules it runs and hands them to ``BrokerServices/make(config:store:httpClient:passwords:catalog:adminToken:clock:logger:metrics:cipher:phases:lifecycle:prefetch:modules:)``.
public protocol BrokerModule: Sendable {
    /// Mints the custom token of every session body, when this module mints them (at most one module does).
    var customTokens: (any CustomTokenMinting)? { get }
    /// Ends an account's sessions held outside the broker when the broker ends its own, when this module has any.
    var sessionRevoking: (any SessionRevoking)? { get }
    /// The outbox jobs this module delivers, each kind with its handler (registered by `serve`'s worker).
    var outboxHandlers: [(kind: OutboxKind, handler: any OutboxHandling)] { get }
    /// The formats of the sessions this module's listeners make, for the enabled `providers`.
    func sessionFormats(providers: ProviderRegistry) -> [any SessionFormat]
}

extension BrokerServices {
    /// The module of type `type` this composition was given, or nil.
    public func module<Module: BrokerModule>(_ type: Module.Type) -> Module? {
        modules.lazy.compactMap { $0 as? Module }.first
    }
}
