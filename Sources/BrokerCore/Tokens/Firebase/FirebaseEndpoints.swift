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
}
