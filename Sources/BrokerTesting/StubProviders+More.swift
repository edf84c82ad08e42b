import BrokerCore
import BrokerHTTP
public import BrokerCrypto
public import BrokerModel
import Foundation

/// The stand-ins for Naver, LINE and one generic OpenID Connect issuer:
///
/// - Naver: `GET /naver/v1/nid/me`;
/// - LINE: `GET /line/oauth2/v2.1/certs` (ES256 JWKS), `GET /line/oauth2/v2.1/verify?access_token=`,
///   `GET /line/v2/profile`;
/// - OIDC: `GET /oidc/.well-known/openid-configuration` (naming ``StubProviders/oidcIssuer`` and `/oidc/jwks`),
///   `GET /oidc/jwks` (an RSA and a P-256 key);
/// - control: `POST /naver/users`, `POST /line/users`, `POST /control/{naver,line,oidc}` `{"fault", "delayMs"}`.
extension StubProviders {
    /// The stub LINE channel id.
    public static let lineChannelID = "1650000000"
    /// The client id the stub OIDC issuer's tokens name.
    public static let oidcAudience = "stub-oidc-client"
    /// The id of the generic OIDC entry in the stub config (`"type": "oidc"`).
    public static let oidcProviderID = "corp"

    /// The stub OIDC issuer: `<baseURL>/oidc`, unless set (in-process stubs have another base).
    public var oidcIssuer: String {
        get { more.lock.withLock { more.oidcIssuer } ?? baseURL + "/oidc" }
        set { more.lock.withLock { more.oidcIssuer = newValue } }
    }

    /// Registers a Naver user and returns a fresh access token for them.
    public func naverAccessToken(for user: NaverStubUser) -> String {
        let token = "AAAAN" + Base64URL.encode(SecureRandom.bytes(24))
        more.lock.withLock { more.naverTokens[token] = user }
        return token
    }

    /// Registers a LINE user and returns a fresh access token for them.
    public func lineAccessToken(for user: LineStubUser) -> String {
        let token = "eyLINE" + Base64URL.encode(SecureRandom.bytes(24))
        more.lock.withLock { more.lineTokens[token] = user }
        return token
    }

    /// Makes `provider`'s stub (`naver`, `line`, `oidc`) misbehave, or behave again with `.none`.
    public func setFault(_ provider: String, _ fault: StubFault) { more.lock.withLock { more.faults[provider] = fault } }

    /// Calls the stub of `provider` (`naver`, `line`, `oidc`) answered so far.
    public func callCount(_ provider: String) -> Int { more.lock.withLock { more.calls[provider] ?? 0 } }

    /// A LINE ID token (ES256) with sensible default claims (issuer, the channel as audience, a user id, one
    /// hour) overridden by `claims` (`.null` removes one).
    public func lineIDToken(
        claims: [String: JSONValue] = [:], header: [String: JSONValue] = [:], signingKey: P256PrivateKey? = nil,
        kid: String? = nil
    ) throws -> String {
        let current = line.current
        return try TestTokens.signES256(
            claims: StubProviders.claims(
                defaults: ["iss": "https://access.line.me", "aud": .string(StubProviders.lineChannelID),
                           "sub": "U1234567890abcdef1234567890abcdef"],
                overrides: claims),
            key: signingKey ?? current.key, kid: kid ?? current.id, extraHeader: header)
    }

    /// An ID token of the stub OIDC issuer: RS256 with its RSA key, or ES256 with its P-256 key.
    public func oidcIDToken(claims: [String: JSONValue] = [:], es256: Bool = false) throws -> String {
        let all = StubProviders.claims(
            defaults: ["iss": .string(oidcIssuer), "aud": .string(StubProviders.oidcAudience), "sub": "corp-user-1"],
            overrides: claims)
        if es256 {
            let current = oidcEC.current
            return try TestTokens.signES256(claims: all, key: current.key, kid: current.id)
        }
        let current = oidc.current
        return try TestTokens.sign(claims: all, key: current.key, kid: current.id)
    }

    /// `defaults` plus `iat` now and `exp` in an hour, overridden by `overrides` (`.null` removes a claim).
    public static func claims(defaults: [String: JSONValue], overrides: [String: JSONValue]) -> [String: JSONValue] {
        let now = Int64(Date().timeIntervalSince1970)
        var all = defaults
        all["iat"] = .int(now)
        all["exp"] = .int(now + 3600)
        for (name, value) in overrides {
            if value == .null { all.removeValue(forKey: name) } else { all[name] = value }
        }
        return all
    }

    /// The broker config entries of the three, for stubs served from `base`.
    static func moreProviderEntries(stubsAt base: String) -> [String: JSONValue] {
        [
            "naver": ["enabled": true, "apiBaseUrl": .string(base + "/naver")],
            "line": [
                "enabled": true, "channelId": .string(lineChannelID), "apiBaseUrl": .string(base + "/line"),
                "jwksUrl": .string(base + "/line/oauth2/v2.1/certs"),
            ],
            oidcProviderID: [
                "enabled": true, "type": "oidc", "issuer": .string(base + "/oidc"),
                "audiences": .array([.string(oidcAudience)]), "algorithms": ["RS256", "ES256"], "trustEmail": true,
            ],
        ]
    }

    // MARK: HTTP

    func addMoreProviderRoutes(_ router: inout Router) {
        router.add("GET", "/naver/v1/nid/me") { [self] request, _ in
            if let early = try await applyFault("naver", down: StubProviders.naverDown, refusing: StubProviders.naverRefused) {
                return early
            }
            guard let user = more.lock.withLock({ more.naverTokens[StubProviders.bearer(request)] }) else {
                return StubProviders.naverRefused
            }
            var profile: [String: JSONValue] = ["id": .string(user.id)]
            if let email = user.email { profile["email"] = .string(email) }
            if let nickname = user.nickname { profile["nickname"] = .string(nickname) }
            if let name = user.name { profile["name"] = .string(name) }
            if let image = user.profileImage { profile["profile_image"] = .string(image) }
            return .json(200, ["resultcode": "00", "message": "success", "response": .object(profile)])
        }
        router.add("GET", "/line/oauth2/v2.1/certs") { [self] _, _ in
            more.lock.withLock { more.calls["line-jwks", default: 0] += 1 }
            var response = HTTPResponse.json(200, line.jwks)
            response.headers.append(("Cache-Control", "public, max-age=3600"))
            return response
        }
        router.add("GET", "/line/oauth2/v2.1/verify") { [self] request, _ in
            if let early = try await applyFault("line", down: StubProviders.lineDown, refusing: StubProviders.lineRefused) {
                return early
            }
            guard let user = more.lock.withLock({ more.lineTokens[request.query["access_token"] ?? ""] }) else {
                return StubProviders.lineRefused
            }
            return .json(
                200,
                ["scope": "profile openid", "client_id": .string(user.channelID), "expires_in": .int(user.expiresIn)])
        }
        router.add("GET", "/line/v2/profile") { [self] request, _ in
            if let early = try await applyFault("line", down: StubProviders.lineDown, refusing: StubProviders.lineUnauthorized) {
                return early
            }
            guard let user = more.lock.withLock({ more.lineTokens[StubProviders.bearer(request)] }) else {
                return StubProviders.lineUnauthorized
            }
            var profile: [String: JSONValue] = ["userId": .string(user.userID)]
            if let name = user.displayName { profile["displayName"] = .string(name) }
            if let picture = user.pictureURL { profile["pictureUrl"] = .string(picture) }
            return .json(200, .object(profile))
        }
        router.add("GET", "/oidc/.well-known/openid-configuration") { [self] _, _ in
            if let early = try await applyFault("oidc", down: .json(503, ["error": "down"]), refusing: .json(404, [:])) {
                return early
            }
            let issuer = oidcIssuer
            var response = HTTPResponse.json(
                200,
                [
                    "issuer": .string(issuer), "jwks_uri": .string(issuer + "/jwks"),
                    "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                ])
            response.headers.append(("Cache-Control", "public, max-age=3600"))
            return response
        }
        router.add("GET", "/oidc/jwks") { [self] _, _ in
            more.lock.withLock { more.calls["oidc-jwks", default: 0] += 1 }
            let rsa = oidc.jwks["keys"]?.arrayValue ?? []
            var response = HTTPResponse.json(200, .object(["keys": .array(rsa + oidcEC.entries)]))
            response.headers.append(("Cache-Control", "public, max-age=3600"))
            return response
        }
        router.add("POST", "/naver/users") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            guard let id = body["id"]?.stringValue else { return .json(400, ["error": "id is required"]) }
            let user = NaverStubUser(
                id: id, email: body["email"]?.stringValue, nickname: body["nickname"]?.stringValue,
                name: body["name"]?.stringValue, profileImage: body["profileImage"]?.stringValue)
            return .json(200, ["accessToken": .string(naverAccessToken(for: user))])
        }
        router.add("POST", "/line/users") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            guard let id = body["userId"]?.stringValue else { return .json(400, ["error": "userId is required"]) }
            let user = LineStubUser(
                userID: id, displayName: body["displayName"]?.stringValue, pictureURL: body["pictureUrl"]?.stringValue,
                channelID: body["channelId"]?.stringValue ?? StubProviders.lineChannelID)
            return .json(200, ["accessToken": .string(lineAccessToken(for: user))])
        }
        for provider in ["naver", "line", "oidc"] {
            router.add("POST", "/control/\(provider)") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            let fault: StubFault
            switch body["fault"]?.stringValue ?? "none" {
            case "down": fault = .down
            case "slow": fault = .slow(milliseconds: Int(min(max(body["delayMs"]?.intValue ?? 1000, 0), 60_000)))
            case "hang": fault = .hang
            case "refusing": fault = .refusing
            case "misconfigured": fault = .misconfigured
            default: fault = .none
            }
            setFault(provider, fault)
            return HTTPResponse(status: 204)
            }
        }
    }

    /// Counts the call and applies `provider`'s fault: an answer to send instead, or nil to answer normally.
    private func applyFault(_ provider: String, down: HTTPResponse, refusing: HTTPResponse) async throws -> HTTPResponse? {
        let fault = more.lock.withLock {
            more.calls[provider, default: 0] += 1
            return more.faults[provider] ?? StubFault.none
        }
        switch fault {
        case .none: return nil
        case .down: return down
        case .refusing: return refusing
        case .misconfigured: return .json(403, ["resultcode": "403", "message": "Forbidden"])
        case .slow(let milliseconds):
            try await Task.sleep(for: .milliseconds(milliseconds))
            return nil
        case .hang:
            for _ in 0..<600 where !isStopping { try await Task.sleep(for: .milliseconds(50)) }
            return nil
        }
    }

    static func bearer(_ request: HTTPRequest) -> String {
        let header = request.headers["authorization"] ?? ""
        return header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
    }

    static let naverRefused = HTTPResponse.json(401, ["resultcode": "024", "message": "Authentication failed"])
    static let naverDown = HTTPResponse.json(500, ["resultcode": "500", "message": "Internal server error"])
    static let lineRefused = HTTPResponse.json(
        400, ["error": "invalid_request", "error_description": "access token expired"])
    static let lineUnauthorized = HTTPResponse.json(401, ["message": "Authentication failed"])
    static let lineDown = HTTPResponse.json(503, ["message": "Service unavailable"])
}
