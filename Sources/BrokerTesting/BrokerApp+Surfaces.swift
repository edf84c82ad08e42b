public import BrokerCore
public import BrokerHTTP

extension BrokerApp {
    /// The surfaces `broker serve` mounts on its main listener (native, admin, operations), in its order, for the
    /// brokers tests start.
    public static func mainSurfaces(_ services: BrokerServices) -> [any Surface] {
        [NativeSurface(services: services), AdminSurface(services: services), OperationsSurface(services: services)]
    }
}
