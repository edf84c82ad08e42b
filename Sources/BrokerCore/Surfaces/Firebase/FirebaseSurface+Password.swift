extension FirebaseSurface {
    /// `accounts:signUp` / `signupNewUser`: an email and password account, signed in on this listener. With
    /// `anonymous.enabled` (contract section 13), a body with no email and password makes a guest, and one with a
    /// guest's `idToken` plus email and password upgrades that guest in place; otherwise both are
    /// `OPERATION_NOT_ALLOWED`, as is an `idToken` of a user that is no guest.
    func signUp(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let email = try body.optionalString("email")
        let password = try body.optionalString("password")
        let guests = services.signIn.guests?.settings.enabled == true
        let displayName = try body.optionalString("displayName").flatMap { $0.isEmpty ? nil : $0 }
        let result: SignInResult
        if body.has("idToken") {
            let user = try await authenticated(call)
            guard guests, user.account.isAnonymous else {
                throw FirebaseError.operationNotAllowed(
                    "Only a guest's sign-up with idToken (its upgrade) is supported.")
            }
            guard let email, !email.isEmpty else { throw FirebaseError("MISSING_EMAIL") }
            guard let password, !password.isEmpty else { throw FirebaseError("MISSING_PASSWORD") }
            result = try await services.signIn.upgrade(
                user.account, email: email, password: password, displayName: displayName, requestID: call.requestID,
                surface: .firebase)
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
