public import BrokerCore
public import BrokerModel
/// What operators and token verifiers use (contract sections 3 and 7): health, readiness, metrics, the broker's
/// JWKS and discovery document, and the OpenAPI document of every route (`GET /openapi.json`).
public struct OperationsSurface: Surface {
    /// What the operations routes use.
    public struct Dependencies: Sendable {
        /// The parsed configuration.
        public var config: BrokerConfig
        /// The broker's signing keys, published.
        public var keys: KeyRing
        /// Metrics, exposed.
        public var metrics: Metrics
        /// Whether the storage answers (readiness): throws when it does not.
        public var checkStorage: @Sendable () async throws -> Void

        /// What `services` holds for this surface.
        public init(_ services: BrokerServices) {
            config = services.config
            keys = services.keys
            metrics = services.metrics
            checkStorage = services.storageCheck
        }
    }

    let services: Dependencies

    /// Creates the surface over `services`.
    public init(services: BrokerServices) { self.init(dependencies: Dependencies(services)) }

    /// Creates the surface over its dependencies.
    public init(dependencies: Dependencies) { services = dependencies }

    /// The native error body.
    public func render(_ error: any Error) -> RenderedError { NativeSurface.render(error) }

    /// Adds the operations routes.
    public func mount(on router: inout Router) {
        mountReadiness(&router)
        router.add("GET", "/healthz") { _, _ in .json(200, .object(["status": "ok"])) }
        router.add("GET", "/metrics") { [services] _, _ in
            HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                body: Array(services.metrics.exposition().utf8))
        }
        router.add("GET", "/.well-known/jwks.json") { [services] _, _ in
            let keys = await services.keys.published().map(\.publicJWK)
            var response = HTTPResponse.json(200, .object(["keys": .array(keys)]))
            response.headers.append(("Cache-Control", "public, max-age=300"))
            return response
        }
        router.add("GET", "/openapi.json") { _, _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: OpenAPIDocument.bytes)
        }
        // What lets a verifier find the keys of the broker's ID tokens (docs/operations.md). No token_endpoint:
        // /v1/token takes a refresh token as JSON, not an OAuth 2.0 token request, so none is advertised.
        router.add("GET", "/.well-known/openid-configuration") { [services] _, _ in
            let issuer = services.config.issuer
            let algorithms = Set(await services.keys.published().map(\.algorithm.rawValue)).sorted()
            return .json(
                200,
                .object([
                    "issuer": .string(issuer), "jwks_uri": .string(issuer + "/.well-known/jwks.json"),
                    "id_token_signing_alg_values_supported": .array(algorithms.map(JSONValue.string)),
                    "response_types_supported": ["id_token"], "subject_types_supported": ["public"],
                    "claims_supported": .array(
                        ["iss", "aud", "sub", "iat", "exp", "auth_time", "email", "email_verified", "sign_in_provider"]
                            .map(JSONValue.string)),
                ]))
        }
    }
}
