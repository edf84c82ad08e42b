import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerHTTP
import BrokerModel
import BrokerStorage
import Testing

/// Closed refusals (`design/sign-in-pipeline.md`): every layer error names its ``Refusal``; the native answer's
/// code is the refusal's own ``Refusal/code`` (the outcome label of metrics and audit events), and both surfaces
/// answer each refusal in their dialect.
@Suite struct RefusalTests {
    /// A layer error, its native status and code, and the Firebase listener's status and code.
    static let cases: [(any Error & Sendable, Int, String, Int, String)] = [
        (RequestError.invalidRequest("cursor is not valid."), 400, "INVALID_REQUEST", 400, "INVALID_REQUEST"),
        (RequestError.notFound, 404, "NOT_FOUND", 404, "NOT_FOUND"),
        (RequestError(.payloadTooLarge, limit: 10), 413, "PAYLOAD_TOO_LARGE", 413, "INVALID_ARGUMENT"),
        (RequestError(.shuttingDown), 503, "UNAVAILABLE", 503, "UNAVAILABLE"),
        (TokenError(.expired), 401, "TOKEN_EXPIRED", 400, "INVALID_IDP_RESPONSE"),
        (TokenError(.missingNonce), 400, "MISSING_NONCE", 400, "MISSING_OR_INVALID_NONCE"),
        (ProviderError(.unavailable), 503, "PROVIDER_UNAVAILABLE", 503, "UNAVAILABLE"),
        (ProviderError(.invalidRequest, "no name"), 400, "INVALID_REQUEST", 400, "INVALID_IDP_RESPONSE"),
        (SignInError(.providerNotEnabled), 404, "PROVIDER_NOT_ENABLED", 400, "OPERATION_NOT_ALLOWED"),
        (AccountError(.notFound), 404, "NOT_FOUND", 400, "USER_NOT_FOUND"),
        (AccountStoreError.notFound, 404, "NOT_FOUND", 400, "USER_NOT_FOUND"),
        (AccountStoreError.cutOff, 401, "INVALID_TOKEN", 400, "INVALID_CUSTOM_TOKEN"),
        (AccountStoreError(.unavailable), 503, "STORAGE_UNAVAILABLE", 503, "UNAVAILABLE"),
        (SignInError(.hookUnavailable), 503, "HOOK_UNAVAILABLE", 503, "UNAVAILABLE"),
        (SQLError(.busy, "locked"), 503, "STORAGE_UNAVAILABLE", 503, "UNAVAILABLE"),
        (AccountError(.tooManyAttempts, retryAfter: 30), 429, "TOO_MANY_ATTEMPTS", 400, "TOO_MANY_ATTEMPTS_TRY_LATER"),
        (PasswordHashingError.overloaded, 429, "TOO_MANY_ATTEMPTS", 400, "TOO_MANY_ATTEMPTS_TRY_LATER"),
        (SessionError(.recentSignInRequired), 401, "RECENT_SIGN_IN_REQUIRED", 400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"),
        (ActionCodeError(.invalidCode), 400, "INVALID_OOB_CODE", 400, "INVALID_OOB_CODE"),
        (CustomTokenError(.invalid, "Token expired."), 401, "INVALID_CUSTOM_TOKEN", 400, "INVALID_CUSTOM_TOKEN"),
        (CustomTokenError(.audienceMismatch), 401, "CREDENTIAL_MISMATCH", 400, "CREDENTIAL_MISMATCH"),
        (AccountAdminError(.passwordHashingUnavailable), 400, "INVALID_REQUEST", 501, "PASSWORD_HASHING_UNAVAILABLE"),
        (WebhookError(), 401, "INVALID_WEBHOOK", 401, "INVALID_WEBHOOK"),
        (
            SignInError(.blockedByHook, "Not in this country."), 403, "BLOCKED_BY_HOOK", 400,
            "BLOCKING_FUNCTION_ERROR_RESPONSE"
        ),
    ]

    @Test(arguments: cases)
    func bothSurfacesAnswerTheRefusal(
        error: any Error & Sendable, nativeStatus: Int, nativeCode: String, firebaseStatus: Int, firebaseCode: String
    ) throws {
        let refusal = try #require(Refusal.refusal(of: error))
        let native = try #require(APIError.mapping(error))
        #expect(native.status == nativeStatus)
        #expect(native.code == nativeCode)
        #expect(refusal.code == native.code, "the outcome label is the native code")
        #expect(Refusal.outcome(of: error) == nativeCode)
        let firebase = try #require(FirebaseError.mapping(error))
        #expect(firebase.status == firebaseStatus)
        #expect(firebase.code == firebaseCode)
        let body = try #require(JSONValue.parse(firebase.response.body)?["error"])
        #expect(body["code"]?.intValue == Int64(firebaseStatus))
    }

    /// The reasons a surface needs travel in the refusal.
    @Test func theRefusalCarriesItsReasons() {
        #expect(
            AccountError(.invalidLoginCredentials, credentialProblem: .wrongPassword).refusal
                == .invalidLoginCredentials(.wrongPassword))
        #expect(
            SessionError(.invalidRefreshToken, refreshProblem: .accountGone).refusal
                == .invalidRefreshToken(.accountGone))
        #expect(
            AccountError(.accountExistsWithDifferentCredential, existingProviders: ["google"]).refusal
                == .accountExists(existingProviders: ["google"]))
        let conflict = APIError.mapping(
            AccountError(.accountExistsWithDifferentCredential, existingProviders: ["google"]))
        #expect(conflict?.existingProviders == ["google"])
        #expect(APIError.mapping(AccountError(.tooManyAttempts, retryAfter: 30))?.headers["Retry-After"] == "30")
        #expect(APIError.mapping(SignInError(.hookUnavailable))?.headers["Retry-After"] == "5")
    }

    /// An internal failure is no refusal: a 500 on both surfaces (its cause only logged), `INTERNAL` as an outcome.
    @Test(arguments: [
        CryptoError(code: .invalidKey, message: "bad") as any Error & Sendable, SQLError(.other, "disk I/O"),
        AccountStoreError.alreadyExists, HTTPClientError(.timeout),
    ])
    func anInternalFailureIsNoRefusal(error: any Error & Sendable) {
        #expect(Refusal.refusal(of: error) == nil)
        #expect(APIError.mapping(error) == nil)
        #expect(FirebaseError.mapping(error) == nil)
        #expect(Refusal.outcome(of: error) == "INTERNAL")
    }
}
