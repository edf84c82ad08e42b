import BrokerCore
import BrokerHTTP
import BrokerModel

extension StubProviders {
    /// The control API for scripts driving the `stub-providers` executable. `POST /{provider}/token` takes
    /// `{"claims", "header"?, "alg"? (oidc: "ES256"), "forge"? ("hmac", "none", "signature")}`.
    func addControlRoutes(_ router: inout Router) {
        addWebhookSenderRoutes(&router)
        router.add("POST", "/{provider}/token") { [self] request, context in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            let claims = body["claims"]?.objectValue ?? [:]
            let header = body["header"]?.objectValue ?? [:]
            let token: String
            switch context.parameters["provider"] ?? "" {
            case "line": token = try lineIDToken(claims: claims, header: header)
            case "oidc": token = try oidcIDToken(claims: claims, es256: body["alg"]?.stringValue == "ES256")
            case let provider: token = try idToken(provider, claims: claims, header: header)
            }
            // `"forge": "hmac" | "none" | "signature"`: the same token spoiled, for scripts trying the refusals.
            if let name = body["forge"]?.stringValue {
                guard let forgery = TokenForgery(rawValue: name) else {
                    return .json(400, .object(["error": "forge must be hmac, none or signature"]))
                }
                return .json(200, .object(["token": .string(try TestTokens.forged(token, as: forgery))]))
            }
            return .json(200, .object(["token": .string(token)]))
        }
        router.add("POST", "/kakao/users") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            guard let id = body["id"]?.intValue else { return .json(400, .object(["error": "id is required"])) }
            let user = KakaoStubUser(
                id: id, email: body["email"]?.stringValue, emailValid: body["emailValid"]?.boolValue ?? true,
                emailVerified: body["emailVerified"]?.boolValue ?? true, nickname: body["nickname"]?.stringValue,
                appID: body["appId"]?.intValue ?? Int64(StubProviders.kakaoAppID) ?? 0)
            return .json(200, .object(["accessToken": .string(kakaoAccessToken(for: user))]))
        }
        router.add("POST", "/control/kakao") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            let fault: KakaoFault
            switch body["fault"]?.stringValue ?? "none" {
            case "down": fault = .down
            case "slow": fault = .slow(milliseconds: Int(body["delayMs"]?.intValue ?? 1000))
            case "hang": fault = .hang
            case "invalid": fault = .invalidToken
            case "misconfigured": fault = .misconfigured
            case "userMismatch": fault = .userMismatch
            default: fault = .none
            }
            setKakaoFault(fault)
            return HTTPResponse(status: 204)
        }
        router.add("POST", "/control/jwks") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            setJWKSDown(body["provider"]?.stringValue ?? "", body["down"]?.boolValue ?? false)
            return HTTPResponse(status: 204)
        }
        router.add("POST", "/control/rotate") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            guard let keys = keys(body["provider"]?.stringValue ?? "") else { return .json(404, .object([:])) }
            return .json(200, .object(["kid": .string(try keys.rotate())]))
        }
        router.add("POST", "/apple/codes") { [self] request, _ in
            guard let subject = JSONValue.parse(request.body)?["subject"]?.stringValue, !subject.isEmpty else {
                return .json(400, .object(["error": "subject is required"]))
            }
            return .json(200, .object(["code": .string(appleAuth.issueCode(subject: subject))]))
        }
        router.add("POST", "/control/apple-auth") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            switch body["fault"]?.stringValue ?? "none" {
            case "down": appleAuth.setFault(.down)
            case "slow": appleAuth.setFault(.slow(milliseconds: Int(body["delayMs"]?.intValue ?? 1000)))
            case "refusing": appleAuth.setFault(.refusing)
            default: appleAuth.setFault(.none)
            }
            return HTTPResponse(status: 204)
        }
        router.add("POST", "/control/kakao-admin") { [self] request, _ in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            switch body["fault"]?.stringValue ?? "none" {
            case "down": kakaoAdmin.setFault(.down)
            case "slow": kakaoAdmin.setFault(.slow(milliseconds: Int(body["delayMs"]?.intValue ?? 1000)))
            case "refusing": kakaoAdmin.setFault(.refusing)
            default: kakaoAdmin.setFault(.none)
            }
            return HTTPResponse(status: 204)
        }
        router.add("GET", "/control/stats") { [self] _, _ in
            .json(
                200,
                .object([
                    "kakaoCalls": .int(Int64(kakaoCallCount)),
                    "appleRevocations": .int(Int64(appleAuth.revokedTokens.count)),
                    "kakaoUnlinks": .array(kakaoAdmin.unlinks.map { .int($0) }),
                    "naverCalls": .int(Int64(callCount("naver"))), "lineCalls": .int(Int64(callCount("line"))),
                    "oidcDiscoveryFetches": .int(Int64(callCount("oidc"))),
                    "jwksFetches": .object(
                        Dictionary(uniqueKeysWithValues: ["google", "apple", "kakao"].map {
                            ($0, JSONValue.int(Int64(jwksFetchCount($0))))
                        })),
                ]))
        }
    }
}
