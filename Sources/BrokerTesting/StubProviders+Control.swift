import BrokerCore

extension StubProviders {
    /// The control API for scripts driving the `stub-providers` executable.
    func addControlRoutes(_ router: inout Router) {
        router.add("POST", "/{provider}/token") { [self] request, context in
            let body = JSONValue.parse(request.body)?.objectValue ?? [:]
            let token = try idToken(
                context.parameters["provider"] ?? "", claims: body["claims"]?.objectValue ?? [:],
                header: body["header"]?.objectValue ?? [:])
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
                    "jwksFetches": .object(
                        Dictionary(uniqueKeysWithValues: ["google", "apple", "kakao"].map {
                            ($0, JSONValue.int(Int64(jwksFetchCount($0))))
                        })),
                ]))
        }
    }
}
