public import BrokerModel
import Foundation

/// Sign in with Kakao, by either of Kakao's two credentials:
///
/// - an access token (`{"accessToken"}`): checked with Kakao's token-info API (its `app_id` must be ours),
///   then the user is read from `/v2/user/me` (its `id` must be the token's);
/// - an OpenID Connect ID token (`{"idToken", "rawNonce"?}`): verified like any OpenID Connect ID token,
///   against Kakao's JWKS, with any of the app's keys (REST API key, native app key) as audience.
///
/// Both give the Kakao user id in decimal as the subject, so they reach the same account. Kakao ID tokens carry
/// no `email_verified`; their email is trusted only when such a claim says true. The access-token path trusts
/// the email when Kakao reports it both valid and verified.
public struct KakaoProvider: IdentityProvider {
    /// ID tokens and access tokens.
    public let credentialKinds: Set<CredentialKind> = [.idToken, .accessToken]

    /// `kakao`.
    public let id: ProviderID
    let appID: String
    let api: KakaoAPI
    private let issuer: OIDCIssuer
    let linking: LinkingRule?
    /// The app's primary admin key (`adminKeyFile`, trimmed): unlinks deleted accounts' Kakao users. Never logged.
    let adminKey: String?

    init(
        id: ProviderID, appID: String, api: KakaoAPI, issuer: OIDCIssuer, linking: LinkingRule?,
        adminKey: String? = nil
    ) {
        self.id = id
        self.appID = appID
        self.api = api
        self.issuer = issuer
        self.linking = linking
        self.adminKey = adminKey
    }

    /// Verifies an access token (with Kakao's API) or an OpenID Connect ID token.
    public func verify(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity {
        let identity: ExternalIdentity
        switch credential {
        case .accessToken(let token): identity = try await verifyAccessToken(token)
        case .idToken(let token, let rawNonce): identity = try await verifyIDToken(token, rawNonce: rawNonce)
        }
        return VerifiedIdentity(identity: identity, linking: linking)
    }

    /// Checks an access token with Kakao and reads the user.
    public func verifyAccessToken(_ token: String) async throws -> ExternalIdentity {
        // RFC 6750's token characters only: anything else cannot be a Kakao token, and must never reach a header.
        guard ProviderCall.isBearerToken(token) else { throw ProviderError(.invalidToken, "not a bearer token") }
        let info = try await api.get("/v1/user/access_token_info", accessToken: token, call: "token_info")
        // Kakao's ids are positive integers (an `intValue` is within ±9e15, so nothing here can trap).
        guard let tokenUser = info["id"]?.intValue, tokenUser > 0 else {
            throw ProviderError(.unavailable, "kakao token_info: no user id")
        }
        guard let tokenApp = info["app_id"]?.intValue, String(tokenApp) == appID else {
            throw ProviderError.kakaoAppMismatch("kakao token issued to another app")
        }
        let user = try await api.get("/v2/user/me", accessToken: token, call: "user_me")
        guard let userID = user["id"]?.intValue, userID > 0 else {
            throw ProviderError(.unavailable, "kakao user_me: no user id")
        }
        guard userID == tokenUser else { throw ProviderError(.invalidToken, "kakao user_me: id differs from token") }
        let account = user["kakao_account"]
        let profile = account?["profile"]
        let verified = account?["is_email_valid"]?.boolValue == true && account?["is_email_verified"]?.boolValue == true
        return ExternalIdentity(
            provider: id, subject: String(userID), email: account?["email"]?.stringValue, emailVerified: verified,
            displayName: profile?["nickname"]?.stringValue ?? user["properties"]?["nickname"]?.stringValue,
            photoURL: profile?["profile_image_url"]?.stringValue)
    }

    /// Verifies a Kakao OIDC ID token.
    public func verifyIDToken(_ token: String, rawNonce: String?) async throws -> ExternalIdentity {
        let claims = try await issuer.verifier.verify(token, rawNonce: rawNonce)
        guard let subject = claims["sub"]?.stringValue, let number = Int64(subject), number > 0 else {
            throw TokenError(.missingSubject, "kakao sub is not a user id")
        }
        return ExternalIdentity(
            provider: id, subject: String(number), email: claims["email"]?.stringValue,
            emailVerified: claims["email_verified"]?.boolValue ?? false, displayName: claims["nickname"]?.stringValue,
            photoURL: claims["picture"]?.stringValue)
    }
}

extension KakaoProvider: IdentityProviderFactory {
    /// `kakao`.
    public static let type = "kakao"

    /// The shipped config's placeholder Kakao app id (warned of only against the real Kakao API: the stubs use it).
    public static let placeholderAppID = "123456"

    /// The shipped placeholder app id left in an entry that calls the real Kakao API.
    public static func warnings(config: ConfigReader) -> [ConfigError] {
        guard (try? config.optionalString("appId")) == placeholderAppID,
            (try? config.optionalString("apiBaseUrl"))?.hasPrefix("https://kapi.kakao.com") ?? true
        else { return [] }
        return [
            ConfigError.warning(
                field: config.field("appId"),
                "\"\(placeholderAppID)\" is the shipped placeholder: put your Kakao app id here, or Kakao sign-ins fail "
                    + "with KAKAO_APP_MISMATCH")
        ]
    }

    /// Builds the provider from its config entry.
    public static func make(id: ProviderID, config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
        try config.allowOnly([
            "type", "enabled", "appId", "apiBaseUrl", "audiences", "issuers", "jwksUrl", "nonce", "accountMapping",
            "adminKeyFile",
        ])
        let appID = try config.string("appId")
        guard let number = Int64(appID), number > 0 else {
            throw ConfigError(field: config.field("appId"), "must be the Kakao app id (digits)")
        }
        let baseURL = try config.url("apiBaseUrl", allowInsecure: context.allowInsecureURLs)
        let mapping = try OIDCIssuer.checkAccountMapping(config, allowed: ["link", "email-password"])
        let issuer = try OIDCIssuer(
            config: config, provider: id, defaultIssuers: ["https://kauth.kakao.com"], defaultNonce: .optional,
            context: context)
        return KakaoProvider(
            id: id, appID: String(number),
            api: KakaoAPI(baseURL: baseURL, client: context.httpClient, metrics: context.metrics), issuer: issuer,
            linking: mapping == "email-password" ? .kakaoLegacyPassword : nil,
            adminKey: try adminKey(config))
    }

    /// The trimmed content of `adminKeyFile`, nil when the field is absent or null. An unreadable file, an empty
    /// one, or one holding anything but a key's characters is a bad config (the message never holds the key).
    static func adminKey(_ config: ConfigReader) throws -> String? {
        guard let path = try config.optionalString("adminKeyFile") else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else {
            throw ConfigError(field: config.field("adminKeyFile"), "cannot read \(path) (or it is over 4 KiB)")
        }
        let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...256).contains(key.utf8.count), key.utf8.allSatisfy(ProviderCall.isTokenCharacter) else {
            throw ConfigError(
                field: config.field("adminKeyFile"), "must hold the Kakao app's admin key (letters and digits, one line)")
        }
        return key
    }
}
