public import BrokerCore
public import BrokerModel
import BrokerStorage
import Foundation

extension BrokerServices {
    /// The composition over a fresh memory store, for harnesses outside this package (the fuzz targets): `make`
    /// takes a store, which only this package's modules see.
    public static func inMemory(
        config: BrokerConfig, httpClient: any HTTPClient, passwords: any PasswordHashing, adminToken: String?,
        clock: any Clock, logger: Logger, modules: [any BrokerModule]
    ) async throws -> BrokerServices {
        try await make(
            config: config,
            store: MemoryBrokerStore(clock: clock, events: EventRouting.to(config.events, clock: clock)),
            httpClient: httpClient, passwords: passwords, adminToken: adminToken, clock: clock, logger: logger,
            modules: modules)
    }
}
