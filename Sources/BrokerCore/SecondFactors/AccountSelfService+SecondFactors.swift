public import BrokerModel

/// A signed-in user's own second factors (contract section 14): enrolment and its verification, the list, and, with
/// a recent sign-in, removal and a new set of recovery codes. Enrolment needs a recent sign-in too.
extension AccountSelfService {
    /// The second-factor service, or ``SecondFactorError/Code/notEnabled``.
    func factors() throws -> SecondFactorService {
        guard let secondFactors else { throw SecondFactorError(.notEnabled) }
        return secondFactors
    }

    /// Starts an authenticator-app enrolment (recent sign-in required).
    public func startTOTPEnrolment(_ user: User) async throws -> SecondFactorService.Enrolment {
        let service = try factors()
        try requireRecentSignIn(user)
        return try await service.startEnrolment(for: user.account)
    }

    /// Verifies an enrolment with its first code: the factor and a new set of recovery codes.
    public func verifyTOTPEnrolment(
        _ user: User, enrollmentID: String, code: String, displayName: String?, requestID: String
    ) async throws -> SecondFactorService.Enrolled {
        try await factors().verifyEnrolment(
            user.account.id, enrollmentID: enrollmentID, code: code, displayName: displayName, requestID: requestID)
    }

    /// The user's factors and recovery codes left.
    public func secondFactors(_ user: User) async throws -> SecondFactorService.Overview {
        try await factors().overview(user.account.id)
    }

    /// Removes one of the user's factors (recent sign-in required).
    public func removeSecondFactor(_ user: User, factorID: String, requestID: String) async throws {
        let service = try factors()
        try requireRecentSignIn(user)
        try await service.remove(user.account.id, factorID: factorID, actor: .user, requestID: requestID)
    }

    /// A new set of recovery codes (recent sign-in required); the old set dies.
    public func regenerateRecoveryCodes(_ user: User, requestID: String) async throws -> [String] {
        let service = try factors()
        try requireRecentSignIn(user)
        return try await service.regenerateRecoveryCodes(user.account.id, requestID: requestID)
    }
}

extension SignInFlow {
    /// Finishes a sign-in held for its second factor (``SignInStep/secondFactorRequired(_:)``) with `answer`, on the
    /// listener it was held on: the session the first factor would have made (contract section 14).
    public func signIn(
        pendingCredential: String, answer: SecondFactorService.Answer, requestID: String,
        surface: SessionSurface = .native
    ) async throws -> SignInResult {
        guard let service = secondFactors else { throw SecondFactorError(.notEnabled) }
        let method = SecondFactorSignIn(
            credential: pendingCredential, answer: answer, service: service, format: sessions.format(of: surface))
        return try await run(method, SignInContext(requestID: requestID, surface: surface)).result
    }
}
