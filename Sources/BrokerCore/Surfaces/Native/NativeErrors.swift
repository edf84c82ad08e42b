/// An error as the native API shows it (contract section 6): `{"error": {"code", "message"}}` with a status.
/// The one mapping from every layer's error to the native codes lives here; providers contribute their own codes
/// (``ProviderError/publicCode``); anything unmapped is a 500 `INTERNAL` whose cause is only logged.
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

    /// The contract's form of `error`, or nil when it has none (an internal error).
    public static func mapping(_ error: any Error) -> APIError? {
        switch error {
        case let error as APIError: return error
        case let error as TokenError: return mapping(error)
        case let error as ProviderError: return mapping(error)
        case let error as AccountError: return mapping(error)
        case is WebhookError: return APIError(401, "INVALID_WEBHOOK", "The webhook call did not verify.")
        case let error as SignInError:
            switch error.code {
            case .providerNotEnabled: return APIError(404, "PROVIDER_NOT_ENABLED", "This provider is not enabled.")
            }
        case let error as SessionError:
            switch error.code {
            case .invalidRefreshToken: return APIError(401, "INVALID_REFRESH_TOKEN", "The refresh token is not valid.")
            case .unauthenticated: return APIError(401, "UNAUTHENTICATED", "A valid ID token is required.")
            case .recentSignInRequired:
                return APIError(
                    401, "RECENT_SIGN_IN_REQUIRED", "This change needs a recent sign-in; sign in again and retry.")
            }
        case is PasswordHashingError:
            var error = APIError(429, "TOO_MANY_ATTEMPTS", "Too many password operations at once; try again shortly.")
            error.headers["Retry-After"] = "1"
            return error
        case let error as AccountStoreError where error.code == .notFound:
            return notFound  // deleted while the request was under way
        case let error as AccountStoreError where error.code == .cutOff:
            return APIError(401, "INVALID_TOKEN", "The token is not valid.")  // a custom token minted before its cutoff
        case let error as AccountStoreError where error.code == .unavailable:
            return unavailable("STORAGE_UNAVAILABLE", "Storage is unavailable; try again shortly.")
        case let error as SQLError where error.code == .busy || error.code == .unavailable:
            return unavailable("STORAGE_UNAVAILABLE", "Storage is unavailable; try again shortly.")
        default: return nil
        }
    }

    private static func mapping(_ error: TokenError) -> APIError {
        switch error.code {
        case .expired: APIError(401, "TOKEN_EXPIRED", "The token has expired.")
        case .invalidIssuer: APIError(401, "INVALID_ISSUER", "The token's issuer is not accepted.")
        case .invalidAudience: APIError(401, "INVALID_AUDIENCE", "The token was issued for another audience.")
        case .missingNonce: APIError(400, "MISSING_NONCE", "rawNonce is required for this provider.")
        case .nonceMismatch: APIError(401, "NONCE_MISMATCH", "The token's nonce does not match rawNonce.")
        case .replayed: APIError(401, "TOKEN_REPLAYED", "The token has been used already.")
        case .malformed, .algorithmNotAllowed, .forbiddenHeader, .unknownKey, .badSignature, .issuedInFuture,
            .notYetValid, .missingSubject:
            APIError(401, "INVALID_TOKEN", "The token is not valid.")
        }
    }

    private static func mapping(_ error: ProviderError) -> APIError {
        switch error.code {
        case .invalidRequest: invalidRequest(error.detail.isEmpty ? "The request is not valid." : error.detail)
        case .invalidToken: APIError(401, "INVALID_TOKEN", "The token is not valid.")
        case .rejected:
            error.publicCode.map { APIError($0.status, $0.code, $0.message) }
                ?? APIError(401, "INVALID_TOKEN", "The token is not valid.")
        case .misconfigured: APIError(502, "PROVIDER_MISCONFIGURED", "The provider refused this app's configuration.")
        case .unavailable: unavailable("PROVIDER_UNAVAILABLE", "The provider is unavailable; try again shortly.")
        }
    }

    private static func mapping(_ error: AccountError) -> APIError {
        switch error.code {
        case .userDisabled: return APIError(403, "USER_DISABLED", "The account is disabled.")
        case .accountExistsWithDifferentCredential:
            var mapped = APIError(
                409, "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL",
                "An account with this email exists; sign in with one of its providers to link.")
            mapped.existingProviders = error.existingProviders
            return mapped
        case .identityAlreadyLinked:
            return APIError(409, "IDENTITY_ALREADY_LINKED", "This identity is linked to another account.")
        case .notFound: return notFound
        case .emailExists: return APIError(409, "EMAIL_EXISTS", "An account with this email exists.")
        case .invalidEmail: return APIError(400, "INVALID_EMAIL", "The email address is not valid.")
        case .weakPassword:
            return APIError(400, "WEAK_PASSWORD", "The password must be at least \(PasswordPolicy.minimumLength) characters.")
        case .invalidLoginCredentials:
            return APIError(400, "INVALID_LOGIN_CREDENTIALS", "The email or password is wrong.")
        case .tooManyAttempts:
            var mapped = APIError(429, "TOO_MANY_ATTEMPTS", "Too many failed attempts; try again later.")
            mapped.headers["Retry-After"] = String(error.retryAfter ?? 60)
            return mapped
        case .lastIdentity:
            return APIError(400, "LAST_IDENTITY", "This is the account's last way to sign in and cannot be removed.")
        case .invalidPhotoURL:
            return invalidRequest("photoUrl must be an absolute https URL of at most \(PhotoURL.maximumLength) bytes.")
        }
    }

    /// The response carrying this error.
    public var response: HTTPResponse {
        var body: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let existingProviders { body["existingProviders"] = .array(existingProviders.map(JSONValue.string)) }
        var response = HTTPResponse.json(status, .object(["error": .object(body)]))
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
        return response
    }
}

extension HTTPResponse {
    /// A JSON response.
    public static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: value.serialized())
    }
}
