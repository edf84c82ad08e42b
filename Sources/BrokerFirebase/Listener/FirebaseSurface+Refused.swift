import BrokerCore
extension FirebaseSurface {
    /// The iOS SDK's calls this broker does not serve, answered as a project that has not enabled them is:
    /// phone sign-in (`sendVerificationCode`, `verifyPhoneNumber` / `signInWithPhoneNumber`, and `verifyClient`, the
    /// app check before an SMS) and Game Center (`signInWithGameCenter`) are `OPERATION_NOT_ALLOWED`, changing nothing.
    func mountRefused(on routes: inout FirebaseRouteTable) {
        let refused: [(v1: String?, legacy: String)] = [
            ("accounts:sendVerificationCode", "sendVerificationCode"),
            ("accounts:signInWithPhoneNumber", "verifyPhoneNumber"), (nil, "verifyClient"),
            ("accounts:signInWithGameCenter", "signInWithGameCenter"),
        ]
        for (v1, legacy) in refused {
            let handler: FirebaseHandler = { _ in
                throw FirebaseError.operationNotAllowed("Phone and Game Center sign-in are not offered by this broker.")
            }
            if let v1 {
                routes.addClient(v1, legacy: legacy, handler)
            } else {
                routes.add("POST", FirebaseEndpoints.legacyRelyingPartyPath + "/" + legacy, access: .client, handler)
            }
        }
    }
}
