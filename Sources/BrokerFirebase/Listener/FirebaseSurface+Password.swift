import BrokerCore
import BrokerModel
import Foundation

extension FirebaseSurface {
    /// `accounts:signUp` / `signupNewUser`: an email and password account, signed in on this listener. With
    /// `anonymous.enabled` (contract section 13), a body with no email and password makes a guest, and one with a
    /// guest's `idToken` plus email and password upgrades that guest in place; otherwise both are
    /// `OPERATION_NOT_ALLOWED`. With the `idToken` of a user that is no guest, email and password link a password
    /// to that user (``linkPassword(_:email:password:displayName:call:)``).
    func signUp(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let email = try body.optionalString("email")
        let password = try body.optionalString("password")
        let guests = services.signIn.guests?.settings.enabled == true
        let displayName = try body.optionalString("displayName").flatMap { $0.isEmpty ? nil : $0 }
        let result: SignInResult
        if body.has("idToken") {
            let user = try await authenticated(call)
            guard let email, !email.isEmpty else { throw FirebaseError("MISSING_EMAIL") }
            guard let password, !password.isEmpty else { throw FirebaseError("MISSING_PASSWORD") }
            if user.account.isAnonymous {
                guard guests else {
                    throw FirebaseError.operationNotAllowed("Anonymous accounts are not enabled on this broker.")
                }
                result = try await services.signIn.upgrade(
                    user.signedIn, email: email, password: password, displayName: displayName,
                    requestID: call.requestID, surface: .firebase)
            } else {
                result = try await linkPassword(
                    user, email: email, password: password, displayName: displayName, call: call)
            }
        } else if (email ?? "").isEmpty && (password ?? "").isEmpty {
            guard guests else {
                throw FirebaseError.operationNotAllowed("Anonymous accounts are not enabled on this broker.")
            }
            result = try await services.signIn.signInAsGuest(requestID: call.requestID, surface: .firebase)
        } else {
            guard let email, !email.isEmpty else { throw FirebaseError("MISSING_EMAIL") }
            guard let password, !password.isEmpty else { throw FirebaseError("MISSING_PASSWORD") }
            result = try await services.signIn.signUp(
                email: email, password: password, displayName: displayName, requestID: call.requestID,
                surface: .firebase)
        }
        var fields = sessionFields(result)
        fields["kind"] = Self.kind("SignupNewUserResponse")
        fields["email"] = result.account.email.map(JSONValue.string)
        fields["displayName"] = result.account.displayName.map(JSONValue.string)
        return Self.ok(fields)
    }

    /// `signUp` with the `idToken` of a user that is no guest (`linkWithCredential` of an email and password): sets
    /// the account's first password, as `POST /v1/me/password` does (a recent sign-in; every other session ends;
    /// the answer is a new `password` session), then `displayName` when given. The email must be the account's own
    /// (an account without one, or with another, changes it first with a verify-and-change link:
    /// `EMAIL_CHANGE_NEEDS_VERIFICATION`; one another account holds is `EMAIL_EXISTS`); an account with a password
    /// already is `PROVIDER_ALREADY_LINKED`. Nothing changes on a refusal.
    func linkPassword(
        _ user: FirebaseAuthenticatedUser, email rawEmail: String, password: String, displayName: String?,
        call: FirebaseCall
    ) async throws -> SignInResult {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        guard PasswordPolicy.isValidEmail(email) else { throw FirebaseError("INVALID_EMAIL") }
        guard user.account.password?.hash == nil else {
            throw FirebaseError("PROVIDER_ALREADY_LINKED", "The user has a password already.")
        }
        guard user.account.email?.lowercased() == email.lowercased() else {
            if let holder = try await services.accounts.account(email: email), holder.id != user.account.id {
                throw FirebaseError("EMAIL_EXISTS")
            }
            throw FirebaseError(
                "EMAIL_CHANGE_NEEDS_VERIFICATION",
                "Change the user's email first (verifyBeforeUpdateEmail), then link a password to it.")
        }
        let signedIn = user.signedIn
        var result = try await services.selfService.changePassword(
            signedIn, to: password, provider: FirebaseUserInfo.passwordProviderID, surface: .firebase,
            requestID: call.requestID)
        if let displayName {
            var change = ProfileChange()
            change.displayName = .some(displayName)
            result.account = try await services.selfService.updateProfile(signedIn, change, requestID: call.requestID)
        }
        return result
    }

    /// `accounts:signInWithPassword` / `verifyPassword`. A wrong email or password is
    /// `INVALID_LOGIN_CREDENTIALS`, or with `emailEnumerationProtection` false `EMAIL_NOT_FOUND` /
    /// `INVALID_PASSWORD`.
    func signInWithPassword(_ call: FirebaseCall) async throws -> HTTPResponse {
        let email = try call.body.string("email", missing: "INVALID_EMAIL")
        let password = try call.body.string("password", missing: "MISSING_PASSWORD")
        let result: SignInResult
        do {
            result = try await services.signIn.signIn(
                email: email, password: password, requestID: call.requestID, surface: .firebase)
        } catch let error as AccountError where error.code == .invalidLoginCredentials {
            guard !settings.emailEnumerationProtection, let problem = error.credentialProblem else { throw error }
            switch problem {
            case .noSuchAccount: throw FirebaseError("EMAIL_NOT_FOUND")
            case .wrongPassword: throw FirebaseError("INVALID_PASSWORD")
            }
        }
        var fields = sessionFields(result)
        fields["kind"] = Self.kind("VerifyPasswordResponse")
        fields["registered"] = true
        fields["email"] = result.account.email.map(JSONValue.string)
        fields["displayName"] = .string(result.account.displayName ?? "")
        fields["photoUrl"] = result.account.photoURL.map(JSONValue.string)
        return Self.ok(fields)
    }
}
