extension FirebaseSurface {
    /// The Admin SDK's calls under `projects/{project}/…` (the `fbadmin` part of issue 16): added to `routes`
    /// with ``FirebaseRouteTable/add(_:_:access:_:)`` (`.admin`) and, for `projects/{project}:verb`,
    /// ``FirebaseRouteTable/addProjectVerb(_:_:access:_:)``.
    func mountAdmin(on routes: inout FirebaseRouteTable) {}
}
