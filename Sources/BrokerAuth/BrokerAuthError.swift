/// Everything ``BrokerAuth`` throws: the broker's error codes (contract section 6), one case each, and the few
/// failures of the client itself. Never a raw status.
public enum BrokerAuthError: Error, Sendable, Equatable {
    // 400
    /// `INVALID_REQUEST`: a malformed or incomplete request (the message says what).
    case invalidRequest(message: String)
    /// `MISSING_NONCE`: the provider requires a raw nonce.
    case missingNonce
    /// `WEAK_PASSWORD`: under 6 characters.
    case weakPassword
    /// `INVALID_EMAIL`.
    case invalidEmail
    /// `INVALID_LOGIN_CREDENTIALS`: wrong email or password (one answer for both).
    case invalidLoginCredentials
    /// `KAKAO_EMAIL_REQUIRED`: the Kakao account has no email and the broker needs one.
    case kakaoEmailRequired
    /// `LAST_IDENTITY`: the account's last way to sign in cannot be unlinked.
    case lastIdentity
    /// `INVALID_OOB_CODE`: an email code that is wrong, used or expired.
    case invalidOOBCode
    /// `EXPIRED_OOB_CODE`: an expired email code.
    case expiredOOBCode
    /// `INVALID_MFA_CODE`: a wrong second-factor or recovery code.
    case invalidMFACode
    /// `INVALID_PASSKEY`: a passkey that did not verify.
    case invalidPasskey
    // 401
    /// `INVALID_TOKEN`: the provider's token did not verify.
    case invalidToken
    /// `TOKEN_EXPIRED`: the provider's token has expired.
    case tokenExpired
    /// `INVALID_AUDIENCE`: the provider's token is for another app.
    case invalidAudience
    /// `INVALID_ISSUER`: the provider's token has an issuer the broker does not accept.
    case invalidIssuer
    /// `NONCE_MISMATCH`: the token's nonce is not the hash of the raw nonce sent.
    case nonceMismatch
    /// `TOKEN_REPLAYED`: this Apple identity token was used already; start a new authorization.
    case tokenReplayed
    /// `KAKAO_APP_MISMATCH`: the Kakao token is for another Kakao app.
    case kakaoAppMismatch
    /// `INVALID_REFRESH_TOKEN`: the session has ended; ``BrokerAuth`` has signed out locally.
    case invalidRefreshToken
    /// `UNAUTHENTICATED`: no valid ID token of a live session.
    case unauthenticated
    /// `MFA_REQUIRED`: the first factor was right; finish with ``BrokerAuth/signIn(resolving:factorID:code:)``.
    case mfaRequired(PendingSecondFactor)
    /// `INVALID_MFA_PENDING_CREDENTIAL`: the pending second factor expired, was used or had 5 wrong codes.
    case invalidMFAPendingCredential
    /// `RECENT_SIGN_IN_REQUIRED`: sign in again, then retry the change.
    case recentSignInRequired
    // 403
    /// `USER_DISABLED`: the account is disabled.
    case userDisabled
    /// `BLOCKED_BY_HOOK`: the app's own hook refused the sign-in (its message is for the user).
    case blockedByHook(message: String)
    // 404
    /// `NOT_FOUND`.
    case notFound
    /// `PROVIDER_NOT_ENABLED`: the broker has no such provider (or guests) turned on.
    case providerNotEnabled
    // 409
    /// `EMAIL_EXISTS`: an account has this email.
    case emailExists
    /// `ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL`: an account holds this verified email; it signs in with these.
    case accountExists(existingProviders: [String])
    /// `IDENTITY_ALREADY_LINKED`: this provider account belongs to another user.
    case identityAlreadyLinked
    /// `PASSKEY_EXISTS`: this passkey is registered already.
    case passkeyExists
    // 413, 429, 5xx
    /// `PAYLOAD_TOO_LARGE`.
    case payloadTooLarge
    /// `TOO_MANY_ATTEMPTS`: wait `retryAfter` seconds (when the broker said).
    case tooManyAttempts(retryAfter: Int?)
    /// `MAIL_NOT_CONFIGURED`.
    case mailNotConfigured
    /// `PROVIDER_MISCONFIGURED`: the provider refused the broker's configuration of this app.
    case providerMisconfigured
    /// `PROVIDER_UNAVAILABLE`: the provider is down; retry after `retryAfter` seconds.
    case providerUnavailable(retryAfter: Int?)
    /// `STORAGE_UNAVAILABLE`: the broker's database is unreachable; retry after `retryAfter` seconds.
    case storageUnavailable(retryAfter: Int?)
    /// `HOOK_UNAVAILABLE`: the app's hook did not answer; retry after `retryAfter` seconds.
    case hookUnavailable(retryAfter: Int?)
    /// `UNAVAILABLE`: the broker is shutting down; retry after `retryAfter` seconds.
    case unavailable(retryAfter: Int?)
    /// `INTERNAL`: the broker failed.
    case `internal`
    /// A code this version of the package does not know.
    case other(code: String, message: String)
    // The client's own
    /// No one is signed in.
    case notSignedIn
    /// The session changed (a sign-in or sign-out) while this call was under way; its answer was dropped.
    case sessionChanged
    /// The broker could not be reached (offline, a timeout): the session is kept; try again later.
    case network(message: String)
    /// The answer was not the broker's (a proxy's error page, say).
    case unexpectedResponse(status: Int)
    /// The session could not be stored or read.
    case storage(message: String)

    /// The contract's code of a broker error, nil for the client's own.
    public var code: String? {
        switch self {
        case .invalidRequest: "INVALID_REQUEST"
        case .missingNonce: "MISSING_NONCE"
        case .weakPassword: "WEAK_PASSWORD"
        case .invalidEmail: "INVALID_EMAIL"
        case .invalidLoginCredentials: "INVALID_LOGIN_CREDENTIALS"
        case .kakaoEmailRequired: "KAKAO_EMAIL_REQUIRED"
        case .lastIdentity: "LAST_IDENTITY"
        case .invalidOOBCode: "INVALID_OOB_CODE"
        case .expiredOOBCode: "EXPIRED_OOB_CODE"
        case .invalidMFACode: "INVALID_MFA_CODE"
        case .invalidPasskey: "INVALID_PASSKEY"
        case .invalidToken: "INVALID_TOKEN"
        case .tokenExpired: "TOKEN_EXPIRED"
        case .invalidAudience: "INVALID_AUDIENCE"
        case .invalidIssuer: "INVALID_ISSUER"
        case .nonceMismatch: "NONCE_MISMATCH"
        case .tokenReplayed: "TOKEN_REPLAYED"
        case .kakaoAppMismatch: "KAKAO_APP_MISMATCH"
        case .invalidRefreshToken: "INVALID_REFRESH_TOKEN"
        case .unauthenticated: "UNAUTHENTICATED"
        case .mfaRequired: "MFA_REQUIRED"
        case .invalidMFAPendingCredential: "INVALID_MFA_PENDING_CREDENTIAL"
        case .recentSignInRequired: "RECENT_SIGN_IN_REQUIRED"
        case .userDisabled: "USER_DISABLED"
        case .blockedByHook: "BLOCKED_BY_HOOK"
        case .notFound: "NOT_FOUND"
        case .providerNotEnabled: "PROVIDER_NOT_ENABLED"
        case .emailExists: "EMAIL_EXISTS"
        case .accountExists: "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL"
        case .identityAlreadyLinked: "IDENTITY_ALREADY_LINKED"
        case .passkeyExists: "PASSKEY_EXISTS"
        case .payloadTooLarge: "PAYLOAD_TOO_LARGE"
        case .tooManyAttempts: "TOO_MANY_ATTEMPTS"
        case .mailNotConfigured: "MAIL_NOT_CONFIGURED"
        case .providerMisconfigured: "PROVIDER_MISCONFIGURED"
        case .providerUnavailable: "PROVIDER_UNAVAILABLE"
        case .storageUnavailable: "STORAGE_UNAVAILABLE"
        case .hookUnavailable: "HOOK_UNAVAILABLE"
        case .unavailable: "UNAVAILABLE"
        case .internal: "INTERNAL"
        case .other(let code, _): code
        case .notSignedIn, .sessionChanged, .network, .unexpectedResponse, .storage: nil
        }
    }
}

extension BrokerAuthError {
    /// The error of a broker's error body: its `code`, `message`, the extra members some codes carry, and the
    /// `Retry-After` header.
    init(body: ErrorBody.Detail, retryAfter: Int?) {
        let simple: [String: BrokerAuthError] = [
            "MISSING_NONCE": .missingNonce, "WEAK_PASSWORD": .weakPassword, "INVALID_EMAIL": .invalidEmail,
            "INVALID_LOGIN_CREDENTIALS": .invalidLoginCredentials, "KAKAO_EMAIL_REQUIRED": .kakaoEmailRequired,
            "LAST_IDENTITY": .lastIdentity, "INVALID_OOB_CODE": .invalidOOBCode, "EXPIRED_OOB_CODE": .expiredOOBCode,
            "INVALID_MFA_CODE": .invalidMFACode, "INVALID_PASSKEY": .invalidPasskey, "INVALID_TOKEN": .invalidToken,
            "TOKEN_EXPIRED": .tokenExpired, "INVALID_AUDIENCE": .invalidAudience, "INVALID_ISSUER": .invalidIssuer,
            "NONCE_MISMATCH": .nonceMismatch, "TOKEN_REPLAYED": .tokenReplayed, "KAKAO_APP_MISMATCH": .kakaoAppMismatch,
            "INVALID_REFRESH_TOKEN": .invalidRefreshToken, "UNAUTHENTICATED": .unauthenticated,
            "INVALID_MFA_PENDING_CREDENTIAL": .invalidMFAPendingCredential,
            "RECENT_SIGN_IN_REQUIRED": .recentSignInRequired, "USER_DISABLED": .userDisabled, "NOT_FOUND": .notFound,
            "PROVIDER_NOT_ENABLED": .providerNotEnabled, "EMAIL_EXISTS": .emailExists,
            "IDENTITY_ALREADY_LINKED": .identityAlreadyLinked, "PASSKEY_EXISTS": .passkeyExists,
            "PAYLOAD_TOO_LARGE": .payloadTooLarge, "MAIL_NOT_CONFIGURED": .mailNotConfigured,
            "PROVIDER_MISCONFIGURED": .providerMisconfigured, "INTERNAL": .internal,
        ]
        if let known = simple[body.code] {
            self = known
            return
        }
        switch body.code {
        case "INVALID_REQUEST": self = .invalidRequest(message: body.message)
        case "BLOCKED_BY_HOOK": self = .blockedByHook(message: body.message)
        case "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL":
            self = .accountExists(existingProviders: body.existingProviders ?? [])
        case "MFA_REQUIRED":
            self = .mfaRequired(
                PendingSecondFactor(credential: body.mfaPendingCredential ?? "", factors: body.factors ?? []))
        case "TOO_MANY_ATTEMPTS": self = .tooManyAttempts(retryAfter: retryAfter)
        case "PROVIDER_UNAVAILABLE": self = .providerUnavailable(retryAfter: retryAfter)
        case "STORAGE_UNAVAILABLE": self = .storageUnavailable(retryAfter: retryAfter)
        case "HOOK_UNAVAILABLE": self = .hookUnavailable(retryAfter: retryAfter)
        case "UNAVAILABLE": self = .unavailable(retryAfter: retryAfter)
        default: self = .other(code: body.code, message: body.message)
        }
    }
}

/// The contract's error body: `{"error": {"code", "message", …}}`.
struct ErrorBody: Decodable {
    struct Detail: Decodable {
        var code: String
        var message: String
        var existingProviders: [String]?
        var mfaPendingCredential: String?
        var factors: [SecondFactor]?
    }

    var error: Detail
}
