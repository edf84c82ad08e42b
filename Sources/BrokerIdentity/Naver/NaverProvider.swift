public import BrokerModel
import Foundation

/// Sign in with Naver: an access token (`{"accessToken"}`) from Naver Login, checked by reading the user from
/// Naver's profile API (`resultcode` `"00"` required).
///
/// The subject is `response.id`, which Naver issues per app: a token another app obtained for the same person
/// names another id, so it can never reach our user. Naver vouches for no email: the email is kept on the
/// identity but never verified, so it never links to an account. `nickname` (or else `name`) is the display
/// name, `profile_image` the photo.
public struct NaverProvider: IdentityProvider {
    /// Access tokens.
    public let credentialKinds: Set<CredentialKind> = [.accessToken]

    /// `naver`.
    public let id: ProviderID
    private let api: NaverAPI

    init(id: ProviderID, api: NaverAPI) {
        self.id = id
        self.api = api
    }

    /// Verifies an access token; Naver takes no other credential.
    public func verify(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity {
        guard case .accessToken(let token) = credential else { throw ProviderError.unsupported(credential.kind, by: id) }
        return VerifiedIdentity(identity: try await verifyAccessToken(token))
    }

    /// Reads the token's user from Naver.
    public func verifyAccessToken(_ token: String) async throws -> ExternalIdentity {
        guard ProviderCall.isBearerToken(token) else { throw ProviderError(.invalidToken, "not a bearer token") }
        let user = try await api.me(token)
        guard let subject = user["id"]?.stringValue, (1...128).contains(subject.utf8.count),
            subject.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { throw ProviderError(.unavailable, "naver nid/me: no user id") }
        let nickname = user["nickname"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        return ExternalIdentity(
            provider: id, subject: subject, email: user["email"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
            emailVerified: false, displayName: nickname ?? user["name"]?.stringValue,
            photoURL: user["profile_image"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 })
    }
}

extension NaverProvider: IdentityProviderFactory {
    /// `naver`.
    public static let type = "naver"

    /// Builds the provider from its config entry.
    public static func make(id: ProviderID, config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
        try config.allowOnly(["type", "enabled", "apiBaseUrl", "accountMapping"])
        try OIDCIssuer.checkAccountMapping(config)
        let baseURL =
            config.members["apiBaseUrl"].map { $0 == .null } ?? true
            ? "https://openapi.naver.com" : try config.url("apiBaseUrl", allowInsecure: context.allowInsecureURLs)
        return NaverProvider(
            id: id,
            api: NaverAPI(
                baseURL: baseURL,
                call: ProviderCall(client: context.httpClient, metrics: context.metrics, provider: id.rawValue)))
    }
}
