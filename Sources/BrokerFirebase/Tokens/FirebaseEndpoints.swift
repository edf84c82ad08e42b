import BrokerCore
/// Firebase's fixed names, in one place: its services live under Google's domains, and every other file names
/// them through these constants.
public enum FirebaseEndpoints {
    /// The environment variable naming a service-account file, as Firebase's Admin SDKs read it.
    public static let credentialsVariable = "GOOGLE_APPLICATION_CREDENTIALS"
    /// The `aud` a Firebase custom token must carry.
    public static let customTokenAudience =
        "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// Identity Toolkit's API base URL (the admin API that revokes a uid's sessions, among others).
    public static let identityToolkitBaseURL = "https://identitytoolkit.googleapis.com"
    /// The OAuth 2.0 scope of Identity Toolkit's admin API.
    public static let identityToolkitScope = "https://www.googleapis.com/auth/identitytoolkit"
    /// The token endpoint of a service-account file that names none.
    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"

    /// The `iss` prefix of Firebase ID tokens (the project id follows).
    public static let secureTokenIssuerPrefix = "https://securetoken.google.com/"
    /// The `iss` prefix of Firebase session cookies (the project id follows).
    public static let sessionCookieIssuerPrefix = "https://session.firebase.google.com/"
    /// The path prefix of Identity Toolkit v1 on an emulator-style listener (`/accounts:signUp` follows).
    public static let identityToolkitPath = "/identitytoolkit.googleapis.com/v1"
    /// The path prefix of Identity Toolkit v2 on that listener (Identity Platform's calls: `/recaptchaConfig`,
    /// MFA, `/projects/{p}/oauthIdpConfigs`).
    public static let identityToolkitV2Path = "/identitytoolkit.googleapis.com/v2"
    /// The secure-token service's refresh endpoint on an emulator-style listener.
    public static let secureTokenPath = "/securetoken.googleapis.com/v1/token"
    /// The path prefix of the legacy v3 "relyingparty" names (`/verifyAssertion` follows).
    public static let legacyRelyingPartyPath = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
}
