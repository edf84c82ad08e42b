extension FirebaseSurface {
    /// The out-of-band flows (`sendOobCode`, `resetPassword`, `signInWithEmailLink`, `createSessionCookie`; the
    /// `fboob` part of issue 16): added to `routes` with ``FirebaseRouteTable/add(_:_:access:_:)``.
    func mountOOB(on routes: inout FirebaseRouteTable) {}
}
