import BrokerCore
extension FirebaseSurface {
    /// The out-of-band flows (`sendOobCode`, `resetPassword`, `signInWithEmailLink`, `createSessionCookie`; the
    /// `fboob` part of issue 16), each with its legacy v3 name where the iOS SDK sends one. The handlers are in
    /// `FirebaseSurface+OOBHandlers.swift`; `accounts:update` with an `oobCode` (applying a verification) is
    /// ``applyActionCode(_:)``, for the client part's `accounts:update` to hand such bodies to.
    func mountOOB(on routes: inout FirebaseRouteTable) {
        routes.addClient("accounts:sendOobCode", legacy: "getOobConfirmationCode") { [self] call in
            try await sendOobCode(call, admin: call.isAdmin && (try call.body.flag("returnOobLink")))
        }
        routes.add(
            "POST", FirebaseEndpoints.identityToolkitPath + "/projects/{project}/accounts:sendOobCode", access: .admin
        ) {
            [self] call in try await sendOobCode(call, admin: try call.body.flag("returnOobLink"))
        }
        routes.addClient("accounts:resetPassword", legacy: "resetPassword") { [self] call in
            try await resetPassword(call)
        }
        routes.addClient("accounts:signInWithEmailLink", legacy: "emailLinkSignin") { [self] call in
            try await signInWithEmailLink(call)
        }
        routes.addProjectVerb("POST", "createSessionCookie", access: .admin) { [self] call in
            try await createSessionCookie(call)
        }
    }
}
