import BrokerCore
import BrokerHTTP
import BrokerModel
extension FirebaseSurface {
    /// `accounts:lookup` / `getAccountInfo` with the user's `idToken`: `{"users": [UserInfo]}`, the password hash
    /// redacted.
    func lookup(_ call: FirebaseCall) async throws -> HTTPResponse {
        let user = try await authenticated(call)
        var info = FirebaseUserInfo(user.account, providers: services.providers).json(.client)
        let factors = try await mfaInfo(user.account.id)
        if !factors.isEmpty, case .object(var members) = info {
            members["mfaInfo"] = .array(factors)
            info = .object(members)
        }
        return Self.ok(["kind": Self.kind("GetAccountInfoResponse"), "users": [info]])
    }

    /// The `deleteAttribute` names the client may clear.
    static let deletableAttributes: Set<String> = ["DISPLAY_NAME", "PHOTO_URL"]

    /// `accounts:update` / `setAccountInfo` with the user's `idToken`: `displayName`, `photoUrl`,
    /// `deleteAttribute` (`DISPLAY_NAME`, `PHOTO_URL`), `deleteProvider` (unlinks, never the last way in);
    /// `password` (a recent sign-in, contract section 4); `returnSecureToken` answers new tokens. Changing the
    /// email or the phone number here is not supported (`OPERATION_NOT_ALLOWED`); nothing is changed then. A body
    /// with an `oobCode` applies a verification code instead (``applyActionCode(_:)``, Firebase's
    /// `applyActionCode`, which sends no `idToken`).
    func update(_ call: FirebaseCall) async throws -> HTTPResponse {
        if let applied = try await applyActionCode(call) { return applied }
        let body = call.body
        let user = try await authenticated(call)
        if body.has("email") || body.has("oobCode") || body.has("phoneNumber") {
            throw FirebaseError.operationNotAllowed(
                "Changing the email or phone number through accounts:update is not supported by this broker.")
        }
        let password = try body.optionalString("password")
        let deleteAttributes = try body.strings("deleteAttribute")
        if let unknown = deleteAttributes.first(where: { !Self.deletableAttributes.contains($0) }) {
            throw FirebaseError.invalidArgument("deleteAttribute \(NativeBody.printable(unknown)) is not supported")
        }
        let firebaseIDs = try body.strings("deleteProvider")
        let unlinks = try firebaseIDs.map { firebaseID -> ProviderID in
            guard
                let identity = user.account.identities.first(where: {
                    services.providers.firebaseID(of: $0) == firebaseID || $0.provider.rawValue == firebaseID
                })
            else { throw FirebaseError("INVALID_PROVIDER_ID", "The user has no identity of that provider.") }
            return identity.provider
        }
        var change = ProfileChange()
        if let name = try body.optionalString("displayName") { change.displayName = .some(name.isEmpty ? nil : name) }
        if let photo = try body.optionalString("photoUrl") { change.photoURL = .some(photo.isEmpty ? nil : photo) }
        if deleteAttributes.contains("DISPLAY_NAME") { change.displayName = .some(nil) }
        if deleteAttributes.contains("PHOTO_URL") { change.photoURL = .some(nil) }
        let selfService = services.selfService
        let signedIn = user.signedIn
        // Everything the call would refuse is refused before its first write, so a refused call changes nothing:
        // the unlinks' recent sign-in (contract section 4), their identities and the last way in (counting a
        // password this call sets), the photo URL. (The password's own checks run first in its change.)
        let unlinking = Set(unlinks)
        if !unlinking.isEmpty {
            try services.sessions.requireRecentSignIn(signedIn)
            try await services.accounts.checkUnlink(
                user.account, removing: unlinking, passwordAfter: user.account.hasUsablePassword || password != nil)
        }
        try services.accounts.check(change)
        var account = user.account
        // `password` (the SDKs' `updatePassword`): the account's other sessions end in the change's transaction,
        // and the new session's tokens are answered.
        var passwordSession: SignInResult?
        if let password {
            // First (a recent sign-in checked), so a refused password changes nothing. Its tokens name `password`
            // as the sign-in method, as Firebase's do, and keep the asking session's `auth_time` (a change is no
            // sign-in, contract section 4).
            let renewed = try await selfService.changePassword(
                signedIn, to: password, provider: FirebaseUserInfo.passwordProviderID, surface: .firebase,
                requestID: call.requestID)
            account = renewed.account
            passwordSession = renewed
        }
        if change.displayName != nil || change.photoURL != nil {
            account = try await selfService.updateProfile(signedIn, change, requestID: call.requestID)
        }
        if !unlinking.isEmpty {
            account = try await selfService.unlink(signedIn, providers: unlinking, requestID: call.requestID)
        }
        let info = FirebaseUserInfo(account, providers: services.providers).json(.client)
        var fields: [String: JSONValue] = [
            "kind": Self.kind("SetAccountInfoResponse"), "localId": .string(account.id.rawValue),
        ]
        for key in ["email", "emailVerified", "displayName", "photoUrl", "providerUserInfo", "passwordHash"] {
            fields[key] = info[key]
        }
        if var session = passwordSession {
            // The password change ended every other session, this call's too: the new one's tokens.
            session.account = account
            fields.merge(sessionFields(session)) { _, session in session }
        } else if try body.flag("returnSecureToken") {
            // New tokens for the same sign-in: its `auth_time` stays.
            let session = try await selfService.renewed(
                signedIn, account: account, provider: user.signInProvider ?? FirebaseUserInfo.passwordProviderID,
                surface: .firebase)
            fields.merge(sessionFields(session)) { _, session in session }
        }
        return Self.ok(fields)
    }

    /// `accounts:delete` / `deleteAccount` with the user's `idToken`: the account, its identities and sessions,
    /// as `DELETE /v1/me` deletes them; a session that signed in more than 5 minutes ago gets
    /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`.
    func deleteAccount(_ call: FirebaseCall) async throws -> HTTPResponse {
        let user = try await authenticated(call)
        try await services.selfService.delete(
            user.signedIn, requestID: call.requestID)
        return Self.ok(["kind": Self.kind("DeleteAccountResponse")])
    }
}
