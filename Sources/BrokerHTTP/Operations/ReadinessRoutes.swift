import BrokerCore
import BrokerModel
extension OperationsSurface {
    /// `GET /readyz`: 200 `{"status": "ready"}` when the store answers a trivial query, else 503
    /// `STORAGE_UNAVAILABLE` with `Retry-After`. `GET /healthz` says the process serves; this says whether
    /// requests that need the database can succeed, for a load balancer to route around an instance that has
    /// lost it.
    func mountReadiness(_ router: inout Router) {
        router.add("GET", "/readyz") { [services] _, _ in
            try await services.checkStorage()
            return .json(200, .object(["status": "ready"]))
        }
    }
}
