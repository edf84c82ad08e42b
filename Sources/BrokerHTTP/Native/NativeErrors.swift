import BrokerCore
public import BrokerModel
/// An error as the native API shows it (contract section 6): `{"error": {"code", "message"}}` with a status.
/// The one mapping from every ``Refusal`` to the native codes lives here; providers contribute their own codes
/// (``ProviderError/publicCode``); an error that is no refusal is a 500 `INTERNAL` whose cause is only logged.
public struct APIError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The contract's error code.
    public var code: String
    /// A human-readable message: never a token, password or key.
    public var message: String
    /// Extra response headers (`Retry-After`).
    public var headers: [String: String] = [:]
    /// For `ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL`: the existing account's sign-in methods.
    public var existingProviders: [String]? = nil
    /// More members of the `error` object (`MFA_REQUIRED`'s `mfaPendingCredential` and `factors`).
    public var details: [String: JSONValue] = [:]

    /// Creates an error.
    public init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The seconds a client should wait after a 503.
    public static let retryAfterSeconds = 5

    /// `400 INVALID_REQUEST`.
    public static func invalidRequest(_ message: String) -> APIError { APIError(400, "INVALID_REQUEST", message) }
    /// `404 NOT_FOUND`.
    public static let notFound = APIError(404, "NOT_FOUND", "No such resource.")
    /// `500 INTERNAL`.
    public static let internalError = APIError(500, "INTERNAL", "Internal error.")

    private static func unavailable(_ code: String, _ message: String) -> APIError {
        var error = APIError(503, code, message)
        error.headers["Retry-After"] = String(retryAfterSeconds)
        return error
    }

    /// The contract's form of `error`, or nil when it has none (an internal error): the surface's own errors as
    /// they are, every layer error by its ``Refusal``.
    public static func mapping(_ error: any Error) -> APIError? {
        if let own = error as? APIError { return own }
        return Refusal.refusal(of: error).map(mapping)
    }

    /// The native answer to `refusal`: its status, its ``Refusal/code`` and a message (one case each, no default,
    /// so a new refusal does not build until it has an answer here).
    public static func mapping(_ refusal: Refusal) -> APIError {
        let code = refusal.code
        switch refusal {
        case .invalidRequest(let message): return invalidRequest(message)
        case .notFound, .accountNotFound: return notFound
        case .payloadTooLarge(let limit):
            return APIError(413, code, "The request body exceeds \(limit) bytes.")
        case .token(let token): return mapping(token, code: code)
        case .provider(let provider, let detail, let publicCode):
            return mapping(provider, detail: detail, publicCode: publicCode, code: code)
        case .providerNotEnabled: return APIError(404, code, "This provider is not enabled.")
        case .blockedByHook(let message): return APIError(403, code, message)
        case .invalidWebhook: return APIError(401, code, "The webhook call did not verify.")
        case .customTokenCutOff: return APIError(401, code, "The token is not valid.")
        case .invalidCustomToken: return APIError(401, code, "The custom token is not valid.")
        case .customTokenAudienceMismatch: return APIError(401, code, "The custom token is for another project.")
        case .userDisabled: return APIError(403, code, "The account is disabled.")
        case .accountExists(let existingProviders):
            var mapped = APIError(
                409, code, "An account with this email exists; sign in with one of its providers to link.")
            mapped.existingProviders = existingProviders
            return mapped
        case .identityAlreadyLinked: return APIError(409, code, "This identity is linked to another account.")
        case .notAGuest:
            return APIError(
                409, code, "This account is not a guest (another request upgraded it meanwhile); nothing was changed.")
        case .emailExists: return APIError(409, code, "An account with this email exists.")
        case .invalidEmail: return APIError(400, code, "The email address is not valid.")
        case .weakPassword:
            return APIError(400, code, "The password must be at least \(PasswordPolicy.minimumLength) characters.")
        case .invalidLoginCredentials: return APIError(400, code, "The email or password is wrong.")
        case .tooManyAttempts(let retryAfter):
            var mapped = APIError(429, code, "Too many failed attempts; try again later.")
            mapped.headers["Retry-After"] = String(retryAfter ?? 60)
            return mapped
        case .lastIdentity:
            return APIError(400, code, "This is the account's last way to sign in and cannot be removed.")
        case .invalidPhotoURL:
            return invalidRequest("photoUrl must be an absolute https URL of at most \(PhotoURL.maximumLength) bytes.")
        case .adminRefused(let admin, let detail):
            if admin == .userNotFound { return notFound }
            return invalidRequest(detail.isEmpty ? "\(admin.rawValue)." : "\(admin.rawValue): \(detail)")
        case .providerConfig(let config, let detail):
            if config == .configurationNotFound { return notFound }
            return invalidRequest(detail.isEmpty ? "\(config.rawValue)." : "\(config.rawValue): \(detail)")
        case .invalidRefreshToken: return APIError(401, code, "The refresh token is not valid.")
        case .unauthenticated: return APIError(401, code, "A valid ID token is required.")
        case .adminAuthentication(let admin, let retryAfter):
            switch admin {
            case .disabled: return APIError(401, code, "The admin API is disabled: no admin token is configured.")
            case .tokenInQuery: return APIError(401, code, "Admin tokens are accepted only in the Authorization header.")
            case .invalidToken: return APIError(401, code, "A valid admin token is required.")
            case .lockedOut:
                var mapped = APIError(429, code, "Too many failed admin authentications; try again later.")
                mapped.headers["Retry-After"] = String(retryAfter ?? Int(AdminGate.window))
                return mapped
            }
        case .recentSignInRequired:
            return APIError(401, code, "This change needs a recent sign-in; sign in again and retry.")
        case .secondFactorRequired(let pending):
            var mapped = APIError(401, code, "This account has a second factor; finish with POST /v1/signin/mfa.")
            mapped.details = [
                "mfaPendingCredential": .string(pending.credential),
                "factors": .array(
                    pending.factors.map { factor in
                        [
                            "factorId": .string(factor.id), "type": .string(factor.type),
                            "displayName": factor.displayName.map(JSONValue.string) ?? .null,
                        ]
                    }),
            ]
            return mapped
        case .secondFactor(let factor):
            switch factor {
            case .invalidCode: return APIError(400, code, "The code is wrong or was used already.")
            case .invalidPendingCredential:
                return APIError(401, code, "The pending sign-in is unknown, expired, used or refused; sign in again.")
            case .factorNotFound, .notEnabled: return notFound
            }
        case .sessionCookie(let cookie):
            switch cookie {
            case .invalidDuration: return invalidRequest("The session cookie's duration is not valid.")
            case .invalidCookie: return APIError(401, code, "The session cookie is not valid.")
            }
        case .passkey(let passkey):
            switch passkey {
            case .invalidRegistration: return APIError(400, code, "The passkey did not verify; nothing was stored.")
            case .invalidSignIn: return APIError(401, code, "The passkey did not verify.")
            case .passkeyExists: return APIError(409, code, "This passkey is registered already.")
            case .passkeyNotFound: return notFound
            case .notEnabled: return APIError(404, code, "Passkeys are not enabled.")
            }
        case .actionCode(let action): return mapping(action, code: code)
        case .passwordHashingBusy:
            var mapped = APIError(429, code, "Too many password operations at once; try again shortly.")
            mapped.headers["Retry-After"] = "1"
            return mapped
        case .storageUnavailable: return unavailable(code, "Storage is unavailable; try again shortly.")
        case .hookUnavailable: return unavailable(code, "The app's sign-in hook did not answer; try again shortly.")
        case .shuttingDown:
            var mapped = APIError(503, code, "The server is shutting down.")
            mapped.headers["Retry-After"] = "1"
            return mapped
        }
    }

    private static func mapping(_ token: TokenError.Code, code: String) -> APIError {
        switch token {
        case .expired: APIError(401, code, "The token has expired.")
        case .invalidIssuer: APIError(401, code, "The token's issuer is not accepted.")
        case .invalidAudience: APIError(401, code, "The token was issued for another audience.")
        case .missingNonce: APIError(400, code, "rawNonce is required for this provider.")
        case .nonceMismatch: APIError(401, code, "The token's nonce does not match rawNonce.")
        case .replayed: APIError(401, code, "The token has been used already.")
        case .malformed, .algorithmNotAllowed, .forbiddenHeader, .unknownKey, .badSignature, .issuedInFuture,
            .notYetValid, .missingSubject:
            APIError(401, code, "The token is not valid.")
        }
    }

    private static func mapping(
        _ provider: ProviderError.Code, detail: String, publicCode: PublicErrorCode?, code: String
    ) -> APIError {
        switch provider {
        case .invalidRequest: invalidRequest(detail.isEmpty ? "The request is not valid." : detail)
        case .invalidToken: APIError(401, code, "The token is not valid.")
        case .rejected:
            publicCode.map { APIError($0.status, $0.code, $0.message) }
                ?? APIError(401, code, "The token is not valid.")
        case .misconfigured: APIError(502, code, "The provider refused this app's configuration.")
        case .unavailable: unavailable(code, "The provider is unavailable; try again shortly.")
        }
    }

    private static func mapping(_ action: ActionCodeError.Code, code: String) -> APIError {
        switch action {
        case .invalidCode: APIError(400, code, "The code is invalid, used or expired.")
        case .expiredCode: APIError(400, code, "The code has expired.")
        case .wrongEmail: APIError(400, code, "The email does not match the one the code was sent to.")
        case .missingNewPassword: invalidRequest("newPassword is required for a password reset.")
        case .accountNotFound: invalidRequest("No account has this email address.")
        case .invalidContinueURL: invalidRequest("continueUrl must be an absolute URL of at most 2,048 bytes.")
        case .otherAddress:
            invalidRequest(
                "The account has another email address: change it first (a verify-and-change link), then link.")
        }
    }

    /// The response carrying this error.
    public var response: HTTPResponse {
        var body: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let existingProviders { body["existingProviders"] = .array(existingProviders.map(JSONValue.string)) }
        body.merge(details) { own, _ in own }
        var response = HTTPResponse.json(status, .object(["error": .object(body)]))
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
        return response
    }
}
