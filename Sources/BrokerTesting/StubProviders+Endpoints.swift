extension StubProviders {
    /// One of the endpoints scripts call to drive the stubs: `stub-providers --help` lists them.
    public struct ControlEndpoint: Sendable, Equatable {
        /// `GET` or `POST`.
        public var method: String
        /// The path; `{a|b}` stands for one path per alternative.
        public var path: String
        /// The body it reads and what it does.
        public var summary: String

        /// The paths, one per alternative of a `{a|b}` segment.
        public var paths: [String] {
            guard let open = path.firstIndex(of: "{"), let close = path.firstIndex(of: "}") else { return [path] }
            return path[path.index(after: open)..<close].split(separator: "|").map {
                String(path[..<open]) + $0 + String(path[path.index(after: close)...])
            }
        }
    }

    /// The minting and fault endpoints, in the order `stub-providers --help` lists them (the providers' own APIs,
    /// which the broker calls, are not listed). A test calls each on running stubs.
    public static let controlEndpoints: [ControlEndpoint] = [
        ControlEndpoint(
            method: "POST", path: "/{google|apple|kakao|line|oidc}/token",
            summary:
                #"{"claims", "header"?, "alg"? (oidc: "ES256"), "forge"? ("hmac", "none", "signature")} -> {"token"}: a signed ID token"#
        ),
        ControlEndpoint(
            method: "POST", path: "/kakao/users",
            summary: #"{"id", "email"?, "emailValid"?, "emailVerified"?, "nickname"?, "appId"?} -> {"accessToken"}"#),
        ControlEndpoint(
            method: "POST", path: "/naver/users",
            summary: #"{"id", "email"?, "nickname"?, "name"?, "profileImage"?} -> {"accessToken"}"#),
        ControlEndpoint(
            method: "POST", path: "/line/users",
            summary: #"{"userId", "displayName"?, "pictureUrl"?, "channelId"?} -> {"accessToken"}"#),
        ControlEndpoint(
            method: "POST", path: "/apple/codes", summary: #"{"subject"} -> {"code"}: an authorization code"#),
        ControlEndpoint(
            method: "POST", path: "/control/kakao",
            summary:
                #"{"fault": "down|slow|hang|invalid|misconfigured|userMismatch|none", "delayMs"?}: Kakao's API misbehaves"#
        ),
        ControlEndpoint(
            method: "POST", path: "/control/{naver|line|oidc}",
            summary: #"{"fault": "down|slow|hang|refusing|misconfigured|none", "delayMs"?}"#),
        ControlEndpoint(
            method: "POST", path: "/control/apple-auth",
            summary: #"{"fault": "down|slow|refusing|none"}: Apple's token API"#),
        ControlEndpoint(
            method: "POST", path: "/control/kakao-admin",
            summary: #"{"fault": "down|slow|refusing|none"}: Kakao's unlink API"#),
        ControlEndpoint(
            method: "POST", path: "/control/jwks",
            summary: #"{"provider", "down": true|false}: a JWKS answers 503, or recovers"#),
        ControlEndpoint(
            method: "POST", path: "/control/rotate", summary: #"{"provider"} -> {"kid"}: a new signing key"#),
        ControlEndpoint(
            method: "GET", path: "/control/stats",
            summary: "calls counted: Kakao, Naver, LINE, discovery, JWKS fetches, revocations"),
        ControlEndpoint(
            method: "POST", path: "/apple/notifications",
            summary: #"{"type", "sub", "email"?, "jti"?, "ageSeconds"?} -> {"payload"}: a signed Apple notification"#),
        ControlEndpoint(
            method: "POST", path: "/kakao/unlink-callback",
            summary:
                #"{"userId", "appId"?, "adminKey"?, "referrerType"?} -> {"path", "headers", "body"}: Kakao's unlink callback"#
        ),
    ]

    /// ``controlEndpoints`` as `stub-providers --help` prints them.
    public static var controlEndpointsText: String {
        controlEndpoints.map { "  \($0.method) \($0.path) \($0.summary)" }.joined(separator: "\n")
    }
}
