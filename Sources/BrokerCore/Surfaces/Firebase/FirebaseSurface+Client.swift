extension FirebaseSurface {
    /// The client API the apps' SDKs call with an API key: sign-up, sign-in, lookup, update, delete, the token
    /// refresh, and their legacy v3 names.
    func mountClient(on routes: inout FirebaseRouteTable) {}
}
