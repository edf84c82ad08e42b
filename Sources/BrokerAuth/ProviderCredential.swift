public import Foundation

/// What a provider's SDK handed the app, to sign in with (``BrokerAuth/signIn(with:)``) or to link
/// (``BrokerAuth/link(_:)``): the body of `POST /v1/signin/{provider}` (contract section 2).
public enum ProviderCredential: Sendable, Equatable {
    /// Google Sign-In's ID token (`result.user.idToken?.tokenString`), with the raw nonce if the app set one.
    case google(idToken: String, rawNonce: String? = nil)
    /// Sign in with Apple: the identity token, the raw nonce whose SHA-256 the request carried (see
    /// ``SignInNonce``), the authorization code (lets the broker revoke Apple's token when the account is
    /// deleted) and the name, which Apple gives on the first authorization only.
    case apple(
        identityToken: String, rawNonce: String, authorizationCode: String? = nil,
        fullName: PersonNameComponents? = nil)
    /// Kakao Login's access token (`OAuthToken.accessToken`).
    case kakao(accessToken: String)
    /// Kakao's OpenID Connect ID token (`OAuthToken.idToken`), when the Kakao app has it turned on.
    case kakaoOIDC(idToken: String, rawNonce: String? = nil)
    /// Naver Login's access token (`LoginResult.accessToken.tokenString`).
    case naver(accessToken: String)
    /// LINE Login's ID token (`AccessToken.IDTokenRaw`, with the `.openID` permission) and its raw nonce.
    case line(idToken: String, rawNonce: String? = nil)
    /// LINE Login's access token (two calls to LINE instead of none).
    case lineAccessToken(String)
    /// An ID token of the broker's OpenID Connect entry `provider` (its key in `providers.json`).
    case oidc(provider: String, idToken: String, rawNonce: String? = nil)

    /// The provider's id: the last part of the sign-in path.
    public var provider: String {
        switch self {
        case .google: "google"
        case .apple: "apple"
        case .kakao, .kakaoOIDC: "kakao"
        case .naver: "naver"
        case .line, .lineAccessToken: "line"
        case .oidc(let provider, _, _): provider
        }
    }

    /// The sign-in body.
    var body: JSONBody {
        func idToken(_ token: String, _ rawNonce: String?) -> JSONBody {
            .object(["idToken": .string(token), "rawNonce": rawNonce.map(JSONBody.string)])
        }
        switch self {
        case .google(let token, let rawNonce), .kakaoOIDC(let token, let rawNonce), .line(let token, let rawNonce),
            .oidc(_, let token, let rawNonce):
            return idToken(token, rawNonce)
        case .kakao(let token), .naver(let token), .lineAccessToken(let token):
            return .object(["accessToken": .string(token)])
        case .apple(let token, let rawNonce, let code, let name):
            let fullName = name.map { name in
                JSONBody.object([
                    "givenName": name.givenName.map(JSONBody.string),
                    "middleName": name.middleName.map(JSONBody.string),
                    "familyName": name.familyName.map(JSONBody.string),
                ])
            }
            return .object([
                "identityToken": .string(token), "rawNonce": .string(rawNonce),
                "authorizationCode": code.map(JSONBody.string), "fullName": fullName,
            ])
        }
    }
}

/// A request body: strings, `null`, objects (members that are nil left out) and values of the package's own
/// `Encodable` types.
indirect enum JSONBody: Encodable, Sendable {
    case string(String)
    case null
    case object([String: JSONBody?])
    case encodable(any Encodable & Sendable)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (name, value) in members {
                if let value { try container.encode(value, forKey: Key(stringValue: name)) }
            }
        case .encodable(let value):
            try value.encode(to: encoder)
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
