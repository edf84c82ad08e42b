public import BrokerCore
import BrokerHTTP
public import BrokerCrypto
public import BrokerModel
import Foundation

/// Local stand-ins for Google, Apple, Kakao, Naver, LINE and a generic OpenID Connect issuer: JWKS endpoints,
/// test tokens with any claims, and the providers' user APIs with faults on demand (Naver, LINE and the OIDC
/// issuer: `StubProviders+More.swift`). Served over real HTTP by any ``HTTPServer``.
///
/// Paths: `/{google,apple,kakao}/jwks`; `/kakao/v1/user/access_token_info`, `/kakao/v2/user/me`; and the
/// control API the `stub-providers` executable offers to scripts: `POST /{provider}/token {"claims", "header"}`,
/// `POST /kakao/users {"id", "email", ...}`, `POST /control/kakao {"fault", "delayMs"}`,
/// `POST /control/jwks {"provider", "down"}`, `POST /control/rotate {"provider"}`, `GET /control/stats`; and for
/// the account lifecycle (``StubAppleAuth``, ``StubKakaoAdmin``): `POST /apple/codes {"subject"}` (an authorization
/// code), `POST /control/apple-auth {"fault", "delayMs"}` and `POST /control/kakao-admin {"fault", "delayMs"}`
/// (faults `none`, `down`, `slow`, `refusing`).
public final class StubProviders: @unchecked Sendable {
    /// The Google client id the stub's tokens name.
    public static let googleAudience = "stub-client.apps.googleusercontent.com"
    /// The Apple bundle id the stub's tokens name.
    public static let appleAudience = "com.example.stub"
    /// The Kakao app id.
    public static let kakaoAppID = "123456"
    /// The Kakao app keys (REST API key, native app key) accepted as ID-token audiences.
    public static let kakaoAudiences = ["stub-kakao-rest-api-key", "stub-kakao-native-app-key"]
    /// The issuers the stub's tokens carry, by provider.
    public static let issuers = [
        "google": "https://accounts.google.com", "apple": "https://appleid.apple.com", "kakao": "https://kauth.kakao.com",
    ]

    /// Google's keys.
    public let google: StubKeySet
    /// Apple's keys.
    public let apple: StubKeySet
    /// Kakao's OIDC keys.
    public let kakao: StubKeySet
    /// LINE's keys (P-256, ES256).
    public let line: StubECKeySet
    /// The generic OIDC issuer's RSA keys.
    public let oidc: StubKeySet
    /// The generic OIDC issuer's P-256 key.
    public let oidcEC: StubECKeySet
    /// Google's token endpoint and Firebase Auth's admin API.
    public let firebase = StubFirebase()
    /// Kakao's admin-key API (unlinking a user).
    public let kakaoAdmin = StubKakaoAdmin()
    /// Sign in with Apple's token and revoke endpoints.
    public let appleAuth: StubAppleAuth
    /// An app's blocking hooks and event receiver (contract section 16).
    public let appHooks = StubAppHooks()
    /// The Naver, LINE and OIDC stubs' users, faults and counters.
    let more = MoreStubState()

    // Guarded by `lock`.
    private var kakaoTokens: [String: KakaoStubUser] = [:]
    private var kakaoFault: KakaoFault = .none
    private var jwksDown: Set<String> = []
    private var kakaoCalls = 0
    private var jwksFetches: [String: Int] = [:]
    private var boundPort = 0
    private var stopping = false
    private let lock = NSLock()
    private var server: (any HTTPServer)?
    // Written once, in `init`; read-only afterwards.
    private var router = Router()

    /// Creates the stubs with fresh keys.
    public init() throws {
        google = try StubKeySet(prefix: "google")
        apple = try StubKeySet(prefix: "apple")
        kakao = try StubKeySet(prefix: "kakao")
        appleAuth = try StubAppleAuth(keys: apple)
        line = try StubECKeySet(prefix: "line")
        oidc = try StubKeySet(prefix: "oidc")
        oidcEC = try StubECKeySet(prefix: "oidc-ec")
        routes()
    }

    /// Serves the stubs on `server`; returns the bound port.
    @discardableResult
    public func start(server: any HTTPServer, host: String = "127.0.0.1", port: Int = 0) throws -> Int {
        let bound = try server.start(host: host, port: port, maxBodyBytes: 64 * 1024) { [self] request in
            await handle(request)
        }
        lock.withLock {
            self.server = server
            boundPort = bound
        }
        return bound
    }

    /// Stops serving.
    public func stop() async {
        let server = lock.withLock {
            stopping = true
            return self.server
        }
        await server?.shutdown()
    }

    /// Whether ``stop()`` has begun (hanging answers end then).
    var isStopping: Bool { lock.withLock { stopping } }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(lock.withLock { boundPort })" }

    /// The key set of `provider`.
    public func keys(_ provider: String) -> StubKeySet? {
        switch provider {
        case "google": google
        case "apple": apple
        case "kakao": kakao
        case "oidc": oidc
        default: nil
        }
    }

    // MARK: Tokens

    /// An ID token of `provider` whose claims are sensible defaults (issuer, first audience, `sub`, one hour
    /// of validity) overridden by `claims`; a claim set to `.null` in `claims` is removed.
    public func idToken(
        _ provider: String, claims: [String: JSONValue] = [:], header: [String: JSONValue] = [:],
        signingKey: RSAPrivateKey? = nil, kid: String? = nil
    ) throws -> String {
        guard let keys = keys(provider) else { throw ProviderError(.invalidRequest, "unknown stub provider") }
        let now = Int64(Date().timeIntervalSince1970)
        let audience: String =
            switch provider {
            case "google": StubProviders.googleAudience
            case "apple": StubProviders.appleAudience
            default: StubProviders.kakaoAudiences[0]
            }
        var all: [String: JSONValue] = [
            "iss": .string(StubProviders.issuers[provider] ?? ""), "aud": .string(audience),
            "sub": provider == "kakao" ? "4100000001" : .string("\(provider)-user-1"), "iat": .int(now),
            "exp": .int(now + 3600),
        ]
        for (name, value) in claims {
            if value == .null { all.removeValue(forKey: name) } else { all[name] = value }
        }
        let current = keys.current
        return try TestTokens.sign(
            claims: all, key: signingKey ?? current.key, kid: kid ?? current.id, extraHeader: header)
    }

    /// Registers a Kakao user and returns a fresh access token for them.
    public func kakaoAccessToken(for user: KakaoStubUser) -> String {
        let token = "kakao-" + Base64URL.encode(SecureRandom.bytes(24))
        lock.withLock { kakaoTokens[token] = user }
        return token
    }

    /// Makes Kakao's API misbehave (or behave again with `.none`).
    public func setKakaoFault(_ fault: KakaoFault) { lock.withLock { kakaoFault = fault } }

    /// Makes `provider`'s JWKS endpoint answer 503 (or recover).
    public func setJWKSDown(_ provider: String, _ down: Bool) {
        lock.withLock {
            if down { jwksDown.insert(provider) } else { jwksDown.remove(provider) }
        }
    }

    /// Calls made to Kakao's API so far.
    public var kakaoCallCount: Int { lock.withLock { kakaoCalls } }

    /// JWKS fetches of `provider` so far.
    public func jwksFetchCount(_ provider: String) -> Int { lock.withLock { jwksFetches[provider] ?? 0 } }

    /// A broker config (`providers.json`) pointing every provider at these stubs.
    public func brokerConfig(
        issuer: String = "http://127.0.0.1:8080", kakaoMapping: String = "link", linkByVerifiedEmail: Bool = false,
        serviceAccountFile: String? = nil, appleNonce: String = "required"
    ) -> JSONValue {
        StubProviders.brokerConfig(
            stubsAt: baseURL, issuer: issuer, kakaoMapping: kakaoMapping, linkByVerifiedEmail: linkByVerifiedEmail,
            serviceAccountFile: serviceAccountFile, appleNonce: appleNonce)
    }

    /// A broker config pointing every provider at stubs served from `base` (e.g. a `stub-providers` process).
    public static func brokerConfig(
        stubsAt base: String, issuer: String = "http://127.0.0.1:8080", kakaoMapping: String = "link",
        linkByVerifiedEmail: Bool = false, serviceAccountFile: String? = nil, appleNonce: String = "required"
    ) -> JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        let google: JSONValue = [
            "enabled": true, "audiences": strings([StubProviders.googleAudience]),
            "issuers": strings(["https://accounts.google.com", "accounts.google.com"]),
            "jwksUrl": .string(base + "/google/jwks"),
        ]
        let apple: JSONValue = [
            "enabled": true, "audiences": strings([StubProviders.appleAudience]),
            "issuers": strings(["https://appleid.apple.com", "https://account.apple.com"]),
            "jwksUrl": .string(base + "/apple/jwks"), "nonce": .string(appleNonce),
            "apiBaseUrl": .string(base + StubAppleAuth.basePath),
        ]
        let kakao: JSONValue = [
            "enabled": true, "appId": .string(StubProviders.kakaoAppID), "apiBaseUrl": .string(base + "/kakao"),
            "audiences": strings(StubProviders.kakaoAudiences), "issuers": strings(["https://kauth.kakao.com"]),
            "jwksUrl": .string(base + "/kakao/jwks"), "accountMapping": .string(kakaoMapping),
        ]
        let firebase: JSONValue = ["serviceAccountFile": serviceAccountFile.map(JSONValue.string) ?? .null]
        let sessions: JSONValue = ["idTokenTtlSeconds": 3600, "refreshTokenTtlDays": 30]
        return [
            "projectId": "stub-project", "issuer": .string(issuer), "clockSkewSeconds": 60,
            "allowInsecureProviderUrls": true,
            "providers": .object(
                ["google": google, "apple": apple, "kakao": kakao].merging(moreProviderEntries(stubsAt: base)) { a, _ in a }),
            "linking": ["byVerifiedEmail": .bool(linkByVerifiedEmail)], "sessions": sessions, "firebase": firebase,
        ]
    }

    // MARK: HTTP

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let match = router.match(method: request.method, path: request.path) else {
            return .json(404, .object(["error": "not found"]))
        }
        do {
            let context = RequestContext(requestID: "stub", logger: .disabled, parameters: match.parameters)
            return try await match.handler(request, context)
        } catch {
            return .json(400, .object(["error": .string("\(error)")]))
        }
    }

    private func routes() {
        var router = Router()
        router.add("GET", "/{provider}/jwks") { [self] _, context in
            let provider = context.parameters["provider"] ?? ""
            guard let keys = keys(provider) else { return .json(404, .object([:])) }
            let down = lock.withLock {
                jwksFetches[provider, default: 0] += 1
                return jwksDown.contains(provider)
            }
            if down { return .json(503, .object(["error": "down"])) }
            var response = HTTPResponse.json(200, keys.jwks)
            response.headers.append(("Cache-Control", "public, max-age=3600"))
            return response
        }
        router.add("GET", "/kakao/v1/user/access_token_info") { [self] request, _ in
            try await kakaoAPI(request) { user in
                .object(["id": .int(user.id), "expires_in": 7199, "app_id": .int(user.appID)])
            }
        }
        router.add("GET", "/kakao/v2/user/me") { [self] request, _ in
            let mismatch = lock.withLock { kakaoFault == .userMismatch }
            return try await kakaoAPI(request) { user in
                var account: [String: JSONValue] = [
                    "profile": .object(["nickname": user.nickname.map(JSONValue.string) ?? .null])
                ]
                if let email = user.email {
                    account["email"] = .string(email)
                    account["is_email_valid"] = .bool(user.emailValid)
                    account["is_email_verified"] = .bool(user.emailVerified)
                }
                return .object(["id": .int(mismatch ? user.id + 1 : user.id), "kakao_account": .object(account)])
            }
        }
        addMoreProviderRoutes(&router)
        addControlRoutes(&router)
        firebase.addRoutes(&router)
        kakaoAdmin.addRoutes(&router)
        appleAuth.addRoutes(&router)
        appHooks.addRoutes(&router)
        self.router = router
    }

    /// Answers a Kakao API call for the bearer token's user, applying the current fault.
    private func kakaoAPI(
        _ request: HTTPRequest, answer: (KakaoStubUser) -> JSONValue
    ) async throws -> HTTPResponse {
        let (fault, user): (KakaoFault, KakaoStubUser?) = lock.withLock {
            kakaoCalls += 1
            let header = request.headers["authorization"] ?? ""
            let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
            return (kakaoFault, kakaoTokens[token])
        }
        switch fault {
        case .down: return .json(503, .object(["code": -1, "msg": "internal error"]))
        case .hang:
            // Holds the answer for 30 s, or until the stubs stop (so shutting down never waits on it).
            for _ in 0..<600 where !lock.withLock({ stopping }) { try await Task.sleep(for: .milliseconds(50)) }
        case .slow(let milliseconds): try await Task.sleep(for: .milliseconds(milliseconds))
        case .invalidToken: return StubProviders.kakaoInvalidToken
        case .misconfigured: return .json(400, .object(["code": -3, "msg": "this api is not enabled for the app"]))
        case .none, .userMismatch: break
        }
        guard let user else { return StubProviders.kakaoInvalidToken }
        return .json(200, answer(user))
    }

    private static let kakaoInvalidToken = HTTPResponse.json(
        401, .object(["code": -401, "msg": "this access token does not exist"]))
}
