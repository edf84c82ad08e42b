import BrokerCore
import BrokerHTTP
public import BrokerModel
/// An error as Firebase Auth's REST API writes it (contract section 11):
/// `{"error": {"code": 400, "message": "CODE : detail", "errors": [{"message", "domain": "global",
/// "reason": "invalid"}]}}`. Firebase's SDKs read the code from the start of `message` (up to ` : `), so the
/// code is the stable part and the detail is for people. The one mapping from the broker's ``Refusal``s to
/// Firebase's codes lives here; an error that is no refusal is a 500 whose cause is only logged.
public struct FirebaseError: Error, Sendable, Equatable {
    /// The HTTP status (Firebase answers most refusals with 400).
    public var status: Int
    /// Firebase's code (`EMAIL_EXISTS`, `INVALID_ID_TOKEN`).
    public var code: String
    /// Text after `CODE : ` in `message`; never a token, password or key.
    public var detail: String?
    /// `errors[0].reason` (`invalid` for Identity Toolkit's codes).
    public var reason: String
    /// The API's canonical status name (`PERMISSION_DENIED`), for the errors that carry one.
    public var statusName: String?
    /// Extra response headers (`Retry-After`).
    public var headers: [String: String] = [:]

    /// Creates an error; `status` 400 and `reason` `invalid` unless given.
    public init(
        _ code: String, _ detail: String? = nil, status: Int = 400, reason: String = "invalid",
        statusName: String? = nil
    ) {
        self.status = status
        self.code = code
        self.detail = detail
        self.reason = reason
        self.statusName = statusName
    }

    /// `CODE`, or `CODE : detail`.
    public var message: String { detail.map { "\(code) : \($0)" } ?? code }

    /// The response carrying this error.
    public var response: HTTPResponse {
        var error: [String: JSONValue] = [
            "code": .int(Int64(status)), "message": .string(message),
            "errors": [["message": .string(message), "domain": "global", "reason": .string(reason)]],
        ]
        if let statusName { error["status"] = .string(statusName) }
        var response = HTTPResponse.json(status, ["error": .object(error)])
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
        return response
    }

    // MARK: The codes the surface itself raises

    /// `INVALID_ARGUMENT`-style refusal of a malformed body or field (Firebase writes the field's problem as the
    /// code, e.g. `MISSING_EMAIL`, `INVALID_REQ_TYPE`); `detail` names the field.
    public static func invalidArgument(_ detail: String) -> FirebaseError {
        FirebaseError("INVALID_ARGUMENT", detail, statusName: "INVALID_ARGUMENT")
    }
    /// A body that is not a JSON object (or not valid JSON).
    public static let invalidJSON = FirebaseError(
        "INVALID_ARGUMENT", "Invalid JSON payload received.", statusName: "INVALID_ARGUMENT")
    /// A body over the listener's limit: 413 (as the HTTP server refuses it), in Firebase's shape.
    public static let payloadTooLarge = FirebaseError(
        "INVALID_ARGUMENT", "Request payload size exceeds the limit.", status: 413, statusName: "INVALID_ARGUMENT")
    /// A request whose `Host` is not the listener's (DNS rebinding): refused before anything is done.
    public static let hostRefused = FirebaseError(
        "PERMISSION_DENIED", "Host not allowed on this listener.", status: 403, reason: "forbidden",
        statusName: "PERMISSION_DENIED")
    /// A request from a web page whose `Origin` the listener does not serve (``FirebaseOriginPolicy``): refused
    /// before anything is done.
    public static let originRefused = FirebaseError(
        "PERMISSION_DENIED", "Origin not allowed on this listener.", status: 403, reason: "forbidden",
        statusName: "PERMISSION_DENIED")
    /// A request body whose media type is not `application/json` (or that has no `Content-Type`), outside
    /// `securetoken`: refused before anything is done, so a page cannot send one without a CORS preflight.
    public static let unsupportedMediaType = FirebaseError(
        "INVALID_ARGUMENT", "The request body must be application/json (Content-Type).",
        statusName: "INVALID_ARGUMENT")
    /// A client call without an API key (`key=` or `X-Goog-Api-Key`) and without admin authorization.
    public static let missingAPIKey = FirebaseError(
        "PERMISSION_DENIED", "The request is missing a valid API key.", status: 403, reason: "forbidden",
        statusName: "PERMISSION_DENIED")
    /// An admin call without `Authorization: Bearer owner`.
    public static let unauthenticated = FirebaseError(
        "UNAUTHENTICATED", "Request is missing required authentication credential.", status: 401,
        reason: "required", statusName: "UNAUTHENTICATED")
    /// An `Authorization` header that is neither `Bearer owner` nor anything this listener knows.
    public static let invalidCredentials = FirebaseError(
        "UNAUTHENTICATED", "Request had invalid authentication credentials.", status: 401, reason: "authError",
        statusName: "UNAUTHENTICATED")
    /// `projects/{p}` naming another project than the broker's `projectId`.
    public static let projectNotFound = FirebaseError("PROJECT_NOT_FOUND")
    /// A call naming a tenant: the broker serves one user pool, and never answers a tenant's call from it.
    public static let tenantsNotServed = FirebaseError(
        "OPERATION_NOT_ALLOWED", "Tenants are not served by this broker: it has one user pool.")
    /// An unknown path.
    public static let notFound = FirebaseError(
        "NOT_FOUND", "Not Found", status: 404, reason: "notFound", statusName: "NOT_FOUND")
    /// What the broker does not do (phone sign-in, anonymous accounts, MFA): Firebase's answer for a method
    /// the project has not enabled.
    public static func operationNotAllowed(_ detail: String) -> FirebaseError {
        FirebaseError("OPERATION_NOT_ALLOWED", detail)
    }
    /// A bad or expired ID token on a call that takes one (`INVALID_ID_TOKEN`).
    public static let invalidIDToken = FirebaseError("INVALID_ID_TOKEN")
    /// An ID token past its `exp`, or one of a revoked session (`TOKEN_EXPIRED`).
    public static let tokenExpired = FirebaseError("TOKEN_EXPIRED")
    /// An unknown uid (`USER_NOT_FOUND`).
    public static let userNotFound = FirebaseError("USER_NOT_FOUND")
    /// A disabled account (`USER_DISABLED`).
    public static let userDisabled = FirebaseError("USER_DISABLED")
    /// 500: the cause is logged, never sent.
    public static let internalError = FirebaseError(
        "INTERNAL_ERROR", nil, status: 500, reason: "backendError", statusName: "INTERNAL")

    // MARK: Mapping the broker's errors

    /// Firebase's form of `error`, or nil when it has none (an internal error): the surface's own errors as they
    /// are, every layer error by its ``Refusal``.
    public static func mapping(_ error: any Error) -> FirebaseError? {
        if let own = error as? FirebaseError { return own }
        return Refusal.refusal(of: error).map(mapping)
    }

    /// Firebase's answer to `refusal` (one case each, no default, so a new refusal does not build until it has an
    /// answer here). Firebase answers most refusals with 400 and its own code.
    public static func mapping(_ refusal: Refusal) -> FirebaseError {
        switch refusal {
        // A refusal Firebase has no code for is answered with the broker's, as 400.
        case .invalidRequest: return FirebaseError(refusal.code)
        case .notFound: return notFound
        case .payloadTooLarge: return payloadTooLarge
        case .token(let token): return mapping(token)
        case .provider(let provider, let detail, _): return mapping(provider, detail: detail)
        case .providerNotEnabled: return operationNotAllowed("The identity provider configuration is not found.")
        // Firebase's answer when a blocking function refuses; its SDKs show the message after the code.
        case .blockedByHook(let message): return FirebaseError("BLOCKING_FUNCTION_ERROR_RESPONSE", message)
        case .invalidWebhook: return FirebaseError(refusal.code, nil, status: 401)
        case .customTokenCutOff:
            return FirebaseError(
                "INVALID_CUSTOM_TOKEN", "The custom token was minted before its user was taken over, reset or deleted.")
        case .invalidCustomToken(let detail): return FirebaseError("INVALID_CUSTOM_TOKEN", detail)
        case .customTokenAudienceMismatch:
            return FirebaseError("CREDENTIAL_MISMATCH", "The custom token corresponds to a different audience.")
        case .userDisabled: return userDisabled
        case .accountExists, .emailExists: return FirebaseError("EMAIL_EXISTS")
        case .identityAlreadyLinked: return FirebaseError("FEDERATED_USER_ID_ALREADY_LINKED")
        case .notAGuest:
            return FirebaseError("PROVIDER_ALREADY_LINKED", "The user was upgraded by another request meanwhile.")
        case .accountNotFound: return userNotFound
        case .invalidEmail: return FirebaseError("INVALID_EMAIL")
        case .weakPassword:
            return FirebaseError(
                "WEAK_PASSWORD", "Password should be at least \(PasswordPolicy.minimumLength) characters")
        case .invalidLoginCredentials: return FirebaseError("INVALID_LOGIN_CREDENTIALS")
        case .tooManyAttempts(let retryAfter):
            var mapped = FirebaseError(
                "TOO_MANY_ATTEMPTS_TRY_LATER",
                "Access to this account has been temporarily disabled due to many failed login attempts.")
            mapped.headers["Retry-After"] = String(retryAfter ?? 60)
            return mapped
        case .lastIdentity:
            return FirebaseError("MISSING_PROVIDER_ID", "The account's last way to sign in cannot be removed.")
        case .invalidPhotoURL: return FirebaseError("INVALID_PHOTO_URL")
        case .adminRefused(let admin, let detail):
            return FirebaseError(
                admin.firebaseCode, detail.isEmpty ? nil : detail,
                status: admin == .passwordHashingUnavailable ? 501 : 400)
        case .providerConfig(let config, let detail):
            let detail = detail.isEmpty ? nil : detail
            switch config {
            case .invalidProviderID: return FirebaseError("INVALID_PROVIDER_ID", detail)
            case .invalidConfig: return FirebaseError("INVALID_CONFIG", detail)
            case .configurationExists: return FirebaseError("CONFIGURATION_EXISTS", detail, status: 409)
            case .configurationNotFound: return FirebaseError("CONFIGURATION_NOT_FOUND", detail, status: 404)
            case .readOnly, .secretNeedsKey: return operationNotAllowed(detail ?? config.rawValue)
            }
        case .invalidRefreshToken: return FirebaseError("INVALID_REFRESH_TOKEN")
        case .unauthenticated: return invalidIDToken
        // The listener authenticates administrators by its own rule (`Bearer owner`), never through the gate.
        case .adminAuthentication(.lockedOut, let retryAfter): return mapping(.tooManyAttempts(retryAfter: retryAfter))
        case .adminAuthentication: return invalidIDToken
        case .recentSignInRequired: return FirebaseError("CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        // The sign-in routes answer a pending sign-in with 200 and `mfaPendingCredential`; elsewhere it is refused.
        case .secondFactorRequired: return FirebaseError("MFA_REQUIRED", "Finish with accounts/mfaSignIn:finalize.")
        case .secondFactor(let factor):
            switch factor {
            case .invalidCode: return FirebaseError("INVALID_VERIFICATION_CODE")
            case .invalidPendingCredential: return FirebaseError("INVALID_MFA_PENDING_CREDENTIAL")
            case .factorNotFound: return FirebaseError("MFA_ENROLLMENT_NOT_FOUND")
            case .notEnabled: return operationNotAllowed("Second factors are not enabled.")
            }
        case .sessionCookie(let cookie):
            switch cookie {
            case .invalidDuration: return FirebaseError("INVALID_DURATION")
            // No Identity Toolkit route verifies a cookie (the Admin SDKs do it themselves, and call a refused one
            // an invalid session cookie); a broker route that does answers with their name for it.
            case .invalidCookie: return FirebaseError("INVALID_SESSION_COOKIE")
            }
        // The listener has no passkey routes (Firebase Auth has none); a passkey refusal reaching it is answered in
        // its style.
        case .passkey(let passkey):
            switch passkey {
            case .invalidRegistration, .invalidSignIn: return FirebaseError("INVALID_PASSKEY")
            case .passkeyExists: return FirebaseError("PASSKEY_EXISTS")
            case .passkeyNotFound: return notFound
            case .notEnabled: return operationNotAllowed("Passkeys are not enabled.")
            }
        case .actionCode(let action): return mapping(action)
        case .passwordHashingBusy:
            var mapped = FirebaseError("TOO_MANY_ATTEMPTS_TRY_LATER")
            mapped.headers["Retry-After"] = "1"
            return mapped
        case .storageUnavailable, .hookUnavailable: return unavailable
        case .shuttingDown:
            var mapped = unavailable
            mapped.headers["Retry-After"] = "1"
            return mapped
        }
    }

    /// Storage or a provider is down: 503 with `Retry-After`.
    public static var unavailable: FirebaseError {
        var error = FirebaseError(
            "UNAVAILABLE", "The service is currently unavailable.", status: 503, reason: "backendError",
            statusName: "UNAVAILABLE")
        error.headers["Retry-After"] = String(APIError.retryAfterSeconds)
        return error
    }

    /// Firebase's code for a refused action code. `accountNotFound` is `EMAIL_NOT_FOUND`, the answer to a reset
    /// link asked for an unknown address; the verification link's `USER_NOT_FOUND` is the handler's to give.
    private static func mapping(_ action: ActionCodeError.Code) -> FirebaseError {
        switch action {
        case .invalidCode: FirebaseError("INVALID_OOB_CODE")
        case .expiredCode: FirebaseError("EXPIRED_OOB_CODE")
        case .wrongEmail: FirebaseError("INVALID_EMAIL", "The email provided does not match the sign-in email address.")
        case .missingNewPassword: FirebaseError("MISSING_NEW_PASSWORD")
        case .accountNotFound: FirebaseError("EMAIL_NOT_FOUND")
        case .invalidContinueURL:
            FirebaseError("INVALID_CONTINUE_URI", "expected an absolute URI with valid scheme and host")
        case .otherAddress:
            FirebaseError(
                "EMAIL_CHANGE_NEEDS_VERIFICATION",
                "The account has another email address: change it first (a verify-and-change link), then link.")
        }
    }

    private static func mapping(_ token: TokenError.Code) -> FirebaseError {
        switch token {
        case .missingNonce, .nonceMismatch: FirebaseError("MISSING_OR_INVALID_NONCE")
        case .expired: FirebaseError("INVALID_IDP_RESPONSE", "The supplied auth credential is expired.")
        case .malformed, .algorithmNotAllowed, .forbiddenHeader, .unknownKey, .badSignature, .issuedInFuture,
            .notYetValid, .invalidIssuer, .invalidAudience, .missingSubject, .replayed:
            FirebaseError("INVALID_IDP_RESPONSE", "The supplied auth credential is malformed or has expired.")
        }
    }

    private static func mapping(_ provider: ProviderError.Code, detail: String) -> FirebaseError {
        switch provider {
        case .invalidRequest:
            FirebaseError("INVALID_IDP_RESPONSE", detail.isEmpty ? "The request is not valid." : detail)
        case .invalidToken, .rejected:
            FirebaseError("INVALID_IDP_RESPONSE", "The supplied auth credential is malformed or has expired.")
        case .misconfigured: FirebaseError("INVALID_IDP_RESPONSE", "The provider refused this app's configuration.")
        case .unavailable: unavailable
        }
    }
}
