/// Every refusal the broker gives, surface-neutral: layer errors say which one they are (``CodedError/refusal``),
/// and each surface answers every case in its own dialect with one exhaustive `switch` (the native API's error
/// mapper, another listener's), so a new case breaks every surface's build until each answers it.
/// A refusal carries the reasons a surface needs to choose its answer (which part of a password sign-in was wrong,
/// which refresh-token problem), so no surface reads the store to explain an error.
public enum Refusal: Sendable, Equatable {
    // MARK: The request

    /// A malformed request or field; the message says which, never a token, password or key.
    case invalidRequest(String)
    /// No such resource or route.
    case notFound
    /// A body over the listener's limit of `limit` bytes, refused by the HTTP server before any route ran.
    case payloadTooLarge(limit: Int)

    // MARK: Credentials

    /// A token that did not verify (a provider's ID token, a broker token).
    case token(TokenError.Code)
    /// A provider refused or could not check a credential; `publicCode` is a provider's own wire code
    /// (for ``ProviderError/Code/rejected``), `detail` what a malformed request lacked.
    case provider(ProviderError.Code, detail: String, publicCode: PublicErrorCode?)
    /// No enabled provider has the id asked for.
    case providerNotEnabled
    /// The app's hook refused the sign-in (contract section 16), with the app's message for the user.
    case blockedByHook(message: String)
    /// A provider's webhook call that did not verify.
    case invalidWebhook
    /// A custom token minted before its uid's cutoff (a takeover, a reset or a deletion came after it).
    case customTokenCutOff
    /// A custom token that does not verify (a broker or service-account custom token): `detail` says why.
    case invalidCustomToken(detail: String)
    /// A custom token minted for another project.
    case customTokenAudienceMismatch

    // MARK: Accounts

    /// The account is disabled.
    case userDisabled
    /// Another account holds the identity's email; its sign-in methods.
    case accountExists(existingProviders: [String])
    /// The identity is linked to another account.
    case identityAlreadyLinked
    /// An upgrade of a guest (contract section 13) whose account is no guest, or no longer one: another upgrade
    /// of the same guest won; nothing was changed.
    case notAGuest
    /// No such account (deleted, or never there).
    case accountNotFound
    /// A sign-up with an email an account holds already.
    case emailExists
    /// The email is not an address.
    case invalidEmail
    /// The password is too short.
    case weakPassword
    /// A wrong email or password; `problem` says which part, for a surface that may tell them apart.
    case invalidLoginCredentials(AccountError.CredentialProblem?)
    /// Too many failed attempts; seconds until the next is allowed, when known.
    case tooManyAttempts(retryAfter: Int?)
    /// Unlinking would leave the account no way to sign in.
    case lastIdentity
    /// A photo URL the account may not hold (``PhotoURL``).
    case invalidPhotoURL
    /// An administrator's request not authenticated (``AdminGate``): no token, a wrong one, or one in the query
    /// (401); too many failures from the address (429, with seconds to wait).
    case adminAuthentication(AdminAuthenticationError.Code, retryAfter: Int?)
    /// An administrator's account operation refused (``AccountAdminError``), with its detail.
    case adminRefused(AccountAdminError.Code, detail: String)
    /// A change to the OpenID Connect providers managed at run time refused (``ProviderConfigError``).
    case providerConfig(ProviderConfigError.Code, detail: String)

    // MARK: Sessions

    /// A refresh token the broker will not renew; which problem it was, when known.
    case invalidRefreshToken(SessionError.RefreshProblem?)
    /// No valid ID token where one is required.
    case unauthenticated
    /// A sensitive change asked with a session that signed in too long ago.
    case recentSignInRequired
    /// The account has a second factor: the sign-in waits for it (contract section 14); nothing was stored but
    /// the pending credential.
    case secondFactorRequired(PendingSecondFactor)
    /// A second-factor request refused: a wrong code, a dead pending credential, no such factor.
    case secondFactor(SecondFactorError.Code)
    /// A session cookie not minted (a bad duration) or not accepted.
    case sessionCookie(SessionCookieError.Code)
    /// A passkey ceremony or request refused (contract section 15).
    case passkey(PasskeyError.Code)

    // MARK: Action codes

    /// A verification, reset or email sign-in code refused.
    case actionCode(ActionCodeError.Code)

    // MARK: Capacity

    /// Too much password hashing is queued; retry in a second.
    case passwordHashingBusy
    /// Storage cannot be reached or stayed busy; retry shortly.
    case storageUnavailable
    /// The app's hook did not answer (a timeout, another status, a bad body) and its `onFailure` is `deny`
    /// (contract section 16); retry shortly.
    case hookUnavailable
    /// The server is shutting down; retry in a second (on another instance).
    case shuttingDown
}

extension Refusal {
    /// The contract's code for this refusal (section 6): the native API's `code`, and the outcome label metrics and
    /// audit events give a refused sign-in whatever surface carried it (a fixed set, as metrics labels must be).
    public var code: String {
        switch self {
        case .invalidRequest, .invalidPhotoURL: "INVALID_REQUEST"
        case .notFound, .accountNotFound: "NOT_FOUND"
        case .payloadTooLarge: "PAYLOAD_TOO_LARGE"
        case .token(let code): Self.code(of: code)
        case .provider(let code, _, let publicCode):
            switch code {
            case .invalidRequest: "INVALID_REQUEST"
            case .invalidToken: "INVALID_TOKEN"
            case .rejected: publicCode?.code ?? "INVALID_TOKEN"
            case .misconfigured: "PROVIDER_MISCONFIGURED"
            case .unavailable: "PROVIDER_UNAVAILABLE"
            }
        case .providerNotEnabled: "PROVIDER_NOT_ENABLED"
        case .blockedByHook: "BLOCKED_BY_HOOK"
        case .invalidWebhook: "INVALID_WEBHOOK"
        case .customTokenCutOff: "INVALID_TOKEN"
        case .invalidCustomToken: "INVALID_CUSTOM_TOKEN"
        case .customTokenAudienceMismatch: "CREDENTIAL_MISMATCH"
        case .userDisabled: "USER_DISABLED"
        case .accountExists: "ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL"
        case .identityAlreadyLinked, .notAGuest: "IDENTITY_ALREADY_LINKED"
        case .emailExists: "EMAIL_EXISTS"
        case .invalidEmail: "INVALID_EMAIL"
        case .weakPassword: "WEAK_PASSWORD"
        case .invalidLoginCredentials: "INVALID_LOGIN_CREDENTIALS"
        case .tooManyAttempts, .passwordHashingBusy: "TOO_MANY_ATTEMPTS"
        case .lastIdentity: "LAST_IDENTITY"
        case .adminAuthentication(let code, _): code == .lockedOut ? "TOO_MANY_ATTEMPTS" : "UNAUTHENTICATED"
        case .adminRefused(let code, _): code == .userNotFound ? "NOT_FOUND" : "INVALID_REQUEST"
        case .providerConfig(let code, _): code == .configurationNotFound ? "NOT_FOUND" : "INVALID_REQUEST"
        case .invalidRefreshToken: "INVALID_REFRESH_TOKEN"
        case .unauthenticated: "UNAUTHENTICATED"
        case .recentSignInRequired: "RECENT_SIGN_IN_REQUIRED"
        case .secondFactorRequired: "MFA_REQUIRED"
        case .secondFactor(let code):
            switch code {
            case .invalidCode: "INVALID_MFA_CODE"
            case .invalidPendingCredential: "INVALID_MFA_PENDING_CREDENTIAL"
            case .factorNotFound, .notEnabled: "NOT_FOUND"
            }
        case .sessionCookie(let code):
            switch code {
            case .invalidDuration: "INVALID_REQUEST"
            case .invalidCookie: "UNAUTHENTICATED"
            }
        case .passkey(let code):
            switch code {
            case .invalidRegistration, .invalidSignIn: "INVALID_PASSKEY"
            case .passkeyExists: "PASSKEY_EXISTS"
            case .passkeyNotFound: "NOT_FOUND"
            case .notEnabled: "PROVIDER_NOT_ENABLED"
            }
        case .actionCode(let code):
            switch code {
            case .invalidCode: "INVALID_OOB_CODE"
            case .expiredCode: "EXPIRED_OOB_CODE"
            case .wrongEmail: "INVALID_EMAIL"
            case .missingNewPassword, .accountNotFound, .invalidContinueURL, .otherAddress: "INVALID_REQUEST"
            }
        case .storageUnavailable: "STORAGE_UNAVAILABLE"
        case .hookUnavailable: "HOOK_UNAVAILABLE"
        case .shuttingDown: "UNAVAILABLE"
        }
    }

    private static func code(of token: TokenError.Code) -> String {
        switch token {
        case .expired: "TOKEN_EXPIRED"
        case .invalidIssuer: "INVALID_ISSUER"
        case .invalidAudience: "INVALID_AUDIENCE"
        case .missingNonce: "MISSING_NONCE"
        case .nonceMismatch: "NONCE_MISMATCH"
        case .replayed: "TOKEN_REPLAYED"
        case .malformed, .algorithmNotAllowed, .forbiddenHeader, .unknownKey, .badSignature, .issuedInFuture,
            .notYetValid, .missingSubject:
            "INVALID_TOKEN"
        }
    }

    /// The outcome label of a refused sign-in, link or sign-up: the refusal's ``code``, or `INTERNAL` when `error`
    /// is an internal failure (no refusal).
    public static func outcome(of error: any Error) -> String {
        refusal(of: error)?.code ?? "INTERNAL"
    }

    /// The refusal `error` is, or nil when it is an internal failure (a 500).
    public static func refusal(of error: any Error) -> Refusal? {
        (error as? any CodedError)?.refusal
    }
}
