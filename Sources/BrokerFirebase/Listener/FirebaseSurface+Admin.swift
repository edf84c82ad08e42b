import BrokerCore
extension FirebaseSurface {
    /// The Admin SDK's calls under `projects/{project}/…` (the `fbadmin` part of issue 16): the account routes of
    /// `FirebaseAdminRoutes.swift`, each `.admin` (`Bearer owner`).
    func mountAdmin(on routes: inout FirebaseRouteTable) {
        mountAdminRoutes(on: &routes)
        mountProviderConfigRoutes(on: &routes)
    }
}
