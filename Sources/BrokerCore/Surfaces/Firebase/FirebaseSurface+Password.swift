extension FirebaseSurface {
    /// `accounts:signUp` / `signupNewUser`: an email and password account, signed in on this listener. What the
    /// broker does not have (anonymous accounts, upgrading one with `idToken`) is `OPERATION_NOT_ALLOWED`.
    func signUp(_ call: FirebaseCall) async throws -> HTTPResponse {
        let body = call.body
        let email = try body.optionalString("email")
        let password = try body.optionalString("password")
        if body.has("idToken") || ((email ?? "").isEmpty && (password ?? "").isEmpty) {
            throw FirebaseError.operationNotAllowed("Anonymous accounts are not supported by this broker.")
        }
        guard let email, !email.isEmpty else { throw FirebaseError("MISSING_EMAIL") }
        guard let password, !password.isEmpty else { throw FirebaseError("MISSING_PASSWORD") }
        let result = try await services.signIn.signUp(
            email: email, password: password, displayName: try body.optionalString("displayName").flatMap { $0.isEmpty ? nil : $0 },
            requestID: call.requestID, surface: .firebase)
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
