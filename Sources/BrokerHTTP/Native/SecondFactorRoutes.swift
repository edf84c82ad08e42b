import BrokerCore
import BrokerIdentity
import BrokerModel
extension NativeSurface {
    /// The signed-in user's second factors under `/v1/me/mfa` and the sign-in's second step, `POST /v1/signin/mfa`
    /// (contract section 14). With `mfa.totp` off they answer 404 `NOT_FOUND`.
    func mountSecondFactors(_ router: inout Router) {
        let services = self.services
        let selfService = services.selfService
        func me(_ method: String, _ pattern: String, _ handler: @escaping AuthenticatedHandler) {
            router.add(method, pattern, NativeSurface.signedIn(services, handler))
        }
        me("POST", "/v1/me/mfa/totp") { request, _, user in
            try request.allowOnlyQuery([])
            try NativeBody.requireEmpty(request)
            let enrolment = try await selfService.startTOTPEnrolment(user)
            return .json(
                200,
                [
                    "enrollmentId": .string(enrolment.enrollmentID), "secret": .string(enrolment.secret),
                    "otpauthUri": .string(enrolment.otpauthURI), "digits": .int(Int64(enrolment.digits)),
                    "periodSeconds": .int(Int64(enrolment.periodSeconds)),
                    "expiresAt": .string(enrolment.expiresAt.rfc3339),
                ])
        }
        me("POST", "/v1/me/mfa/totp/verify") { request, context, user in
            try request.allowOnlyQuery([])
            let body = try NativeBody(request)
            try body.allowOnly(["enrollmentId", "code", "displayName"])
            let enrolled = try await selfService.verifyTOTPEnrolment(
                user, enrollmentID: try body.string("enrollmentId"), code: try body.string("code"),
                displayName: try body.optionalString("displayName"), requestID: context.requestID)
            return .json(
                200,
                [
                    "factor": enrolled.factor.adminJSON,
                    "recoveryCodes": .array(enrolled.recoveryCodes.map(JSONValue.string)),
                ])
        }
        me("GET", "/v1/me/mfa") { request, _, user in
            try request.allowOnlyQuery([])
            let overview = try await selfService.secondFactors(user)
            return .json(
                200,
                [
                    "factors": .array(overview.factors.map(\.adminJSON)),
                    "recoveryCodesLeft": .int(Int64(overview.recoveryCodesLeft)),
                ])
        }
        me("DELETE", "/v1/me/mfa/{factorId}") { request, context, user in
            try request.allowOnlyQuery([])
            try await selfService.removeSecondFactor(
                user, factorID: context.parameters["factorId"] ?? "", requestID: context.requestID)
            return HTTPResponse(status: 204)
        }
        me("POST", "/v1/me/mfa/recovery-codes") { request, context, user in
            try request.allowOnlyQuery([])
            try NativeBody.requireEmpty(request)
            let codes = try await selfService.regenerateRecoveryCodes(user, requestID: context.requestID)
            return .json(200, ["recoveryCodes": .array(codes.map(JSONValue.string))])
        }
        router.add("POST", "/v1/signin/mfa") { request, context in
            try request.allowOnlyQuery([])
            let body = try NativeBody(request)
            try body.allowOnly(["mfaPendingCredential", "factorId", "code", "recoveryCode"])
            let pending = try body.string("mfaPendingCredential")
            let answer: SecondFactorService.Answer
            switch (body.has("recoveryCode"), body.has("code") || body.has("factorId")) {
            case (true, true): throw APIError.invalidRequest("Send either factorId and code, or recoveryCode.")
            case (true, false): answer = .recoveryCode(try body.string("recoveryCode"))
            case (false, _): answer = .totp(factorID: try body.string("factorId"), code: try body.string("code"))
            }
            let result = try await services.signIn.signIn(
                pendingCredential: pending, answer: answer,
                requestID: context.requestID)
            return .json(200, result.tokens.body(user: result.account, isNewUser: false))
        }
    }
}
