import BrokerCore
import BrokerIdentity
import BrokerModel
import Foundation

/// Firebase's multi-factor protocol for TOTP (contract section 14), the field names of firebase-ios-sdk's
/// `Backend/RPC/MultiFactor/` requests: `v2/accounts/mfaEnrollment:start`, `:finalize`, `:withdraw` and
/// `v2/accounts/mfaSignIn:finalize`, onto the same second-factor service and sign-in method as the native API.
/// A first factor of an account with a factor answers 200 with `mfaPendingCredential` and `mfaInfo` and no token
/// (``pendingAnswer(_:)``). Phone factors are `OPERATION_NOT_ALLOWED`.
extension FirebaseSurface {
    func mountMFA(on routes: inout FirebaseRouteTable) {
        let v2 = FirebaseEndpoints.identityToolkitV2Path
        routes.add("POST", v2 + "/accounts/mfaEnrollment:start", access: .client) { try await startEnrolment($0) }
        routes.add("POST", v2 + "/accounts/mfaEnrollment:finalize", access: .client) { try await finalizeEnrolment($0) }
        routes.add("POST", v2 + "/accounts/mfaEnrollment:withdraw", access: .client) { try await withdraw($0) }
        routes.add("POST", v2 + "/accounts/mfaSignIn:start", access: .client) { _ in
            // TOTP needs no start; SMS is not offered.
            throw FirebaseError.operationNotAllowed("Only TOTP second factors are offered.")
        }
        routes.add("POST", v2 + "/accounts/mfaSignIn:finalize", access: .client) { try await finalizeSignIn($0) }
    }

    /// The 200 answer of a first factor held for its second: `mfaPendingCredential` and `mfaInfo`, no token.
    static func pendingAnswer(_ pending: PendingSecondFactor) -> HTTPResponse {
        ok([
            "localId": .string(pending.uid.rawValue), "mfaPendingCredential": .string(pending.credential),
            "mfaInfo": .array(
                pending.factors.map { factor in
                    var info: [String: JSONValue] = ["mfaEnrollmentId": .string(factor.id), "totpInfo": [:]]
                    if let name = factor.displayName { info["displayName"] = .string(name) }
                    return .object(info)
                }),
        ])
    }

    /// `mfaInfo` of `accounts:lookup`: the enrolled factors.
    func mfaInfo(_ uid: AccountID) async throws -> [JSONValue] {
        guard let service = services.secondFactors else { return [] }
        return try await service.overview(uid).factors.map(Self.mfaInfo)
    }

    /// `mfaInfo` of each of `uids` with a factor, in one read (the admin calls' users).
    func mfaInfo(of uids: [AccountID]) async throws -> [AccountID: [JSONValue]] {
        guard let service = services.secondFactors else { return [:] }
        return try await service.enrolledFactors(of: uids).mapValues { $0.map(Self.mfaInfo) }
    }

    /// One factor as `mfaInfo` lists it: `mfaEnrollmentId`, `displayName`, `enrolledAt`, `totpInfo`.
    static func mfaInfo(_ factor: SecondFactorRecord) -> JSONValue {
        var info: [String: JSONValue] = ["mfaEnrollmentId": .string(factor.id), "totpInfo": [:]]
        if let name = factor.displayName { info["displayName"] = .string(name) }
        if let enrolled = factor.enrolledAt { info["enrolledAt"] = .string(enrolled.rfc3339) }
        return .object(info)
    }

    /// `mfaEnrollment:start` with `totpEnrollmentInfo`: `totpSessionInfo` (`sharedSecretKey`, `sessionInfo`, ...).
    func startEnrolment(_ call: FirebaseCall) async throws -> HTTPResponse {
        guard try call.body.object("phoneEnrollmentInfo") == nil else {
            throw FirebaseError.operationNotAllowed("Only TOTP second factors are offered.")
        }
        guard try call.body.object("totpEnrollmentInfo") != nil else {
            throw FirebaseError.invalidArgument("totpEnrollmentInfo is required.")
        }
        let user = try await authenticated(call)
        let enrolment = try await services.selfService.startTOTPEnrolment(
            user.signedIn)
        return Self.ok([
            "totpSessionInfo": [
                "sharedSecretKey": .string(enrolment.secret), "verificationCodeLength": .int(Int64(enrolment.digits)),
                "hashingAlgorithm": "SHA1", "periodSec": .int(Int64(enrolment.periodSeconds)),
                "sessionInfo": .string(enrolment.enrollmentID),
                "finalizeEnrollmentTime": .string(enrolment.expiresAt.rfc3339),
            ]
        ])
    }

    /// `mfaEnrollment:finalize` with `totpVerificationInfo` (`sessionInfo`, `verificationCode`) and `displayName`:
    /// new tokens for the same sign-in.
    func finalizeEnrolment(_ call: FirebaseCall) async throws -> HTTPResponse {
        guard try call.body.object("phoneVerificationInfo") == nil else {
            throw FirebaseError.operationNotAllowed("Only TOTP second factors are offered.")
        }
        guard let info = try call.body.object("totpVerificationInfo") else {
            throw FirebaseError.invalidArgument("totpVerificationInfo is required.")
        }
        let user = try await authenticated(call)
        let signedIn = user.signedIn
        _ = try await services.selfService.verifyTOTPEnrolment(
            signedIn, enrollmentID: try info.string("sessionInfo", missing: "MISSING_SESSION_INFO"),
            code: try info.string("verificationCode", missing: "MISSING_CODE"),
            displayName: try call.body.optionalString("displayName"), requestID: call.requestID)
        return try await renewedTokens(signedIn, user)
    }

    /// `mfaEnrollment:withdraw` with `mfaEnrollmentId`: new tokens for the same sign-in.
    func withdraw(_ call: FirebaseCall) async throws -> HTTPResponse {
        let id = try call.body.string("mfaEnrollmentId", missing: "MISSING_MFA_ENROLLMENT_ID")
        let user = try await authenticated(call)
        let signedIn = user.signedIn
        try await services.selfService.removeSecondFactor(signedIn, factorID: id, requestID: call.requestID)
        return try await renewedTokens(signedIn, user)
    }

    /// `mfaSignIn:finalize` with `mfaPendingCredential`, `mfaEnrollmentId` and `totpVerificationInfo`
    /// (`verificationCode`): the session the first factor would have made.
    func finalizeSignIn(_ call: FirebaseCall) async throws -> HTTPResponse {
        guard try call.body.object("phoneVerificationInfo") == nil else {
            throw FirebaseError.operationNotAllowed("Only TOTP second factors are offered.")
        }
        let pending = try call.body.string("mfaPendingCredential", missing: "MISSING_MFA_PENDING_CREDENTIAL")
        let id = try call.body.string("mfaEnrollmentId", missing: "MISSING_MFA_ENROLLMENT_ID")
        guard let info = try call.body.object("totpVerificationInfo") else {
            throw FirebaseError.invalidArgument("totpVerificationInfo is required.")
        }
        let code = try info.string("verificationCode", missing: "MISSING_CODE")
        let result = try await services.signIn.signIn(
            pendingCredential: pending, answer: .totp(factorID: id, code: code),
            requestID: call.requestID, surface: .firebase)
        return Self.ok(["idToken": .string(result.tokens.idToken), "refreshToken": .string(result.tokens.refreshToken)])
    }

    /// `{"idToken", "refreshToken"}` of a new session continuing `user`'s sign-in.
    private func renewedTokens(
        _ signedIn: AccountSelfService.User, _ user: FirebaseAuthenticatedUser
    ) async throws -> HTTPResponse {
        let account = try await services.accounts.activeAccount(user.account.id)
        let provider = user.claims["firebase"]?["sign_in_provider"]?.stringValue ?? ProviderID.password.rawValue
        let renewed = try await services.selfService.renewed(
            signedIn, account: account, provider: provider, surface: .firebase)
        return Self.ok([
            "idToken": .string(renewed.tokens.idToken), "refreshToken": .string(renewed.tokens.refreshToken),
        ])
    }
}
