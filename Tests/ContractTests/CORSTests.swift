import BrokerCore
import BrokerFirebase
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// `cors.allowedOrigins`: exact origins only, off by default, never the admin API.
@Suite struct CORSTests {
    static let app = "https://app.example.com"

    static func allowing(_ origins: [String]) -> @Sendable (JSONValue) -> JSONValue {
        { document in
            guard case .object(var top) = document else { return document }
            top["cors"] = ["allowedOrigins": .array(origins.map(JSONValue.string))]
            return .object(top)
        }
    }

    static func preflight(_ broker: BrokerHarness, origin: String, path: String = "/v1/signin/google") async throws
        -> TestResponse
    {
        try await broker.request(
            "OPTIONS", path,
            headers: [
                "Origin": origin, "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            ])
    }

    @Test func anAllowedOriginsPreflightAndRequestsAreAnswered() async throws {
        try await withBroker(configure: Self.allowing([Self.app, "http://localhost:5173"])) { broker in
            let preflight = try await Self.preflight(broker, origin: Self.app)
            #expect(preflight.status == 204)
            #expect(preflight.headers["access-control-allow-origin"] == Self.app)
            #expect(preflight.headers["access-control-allow-methods"] == "GET, POST, PATCH, DELETE")
            #expect(preflight.headers["access-control-allow-headers"] == "Authorization, Content-Type, X-Request-Id")
            #expect(preflight.headers["vary"] == "Origin")
            #expect(preflight.headers["x-request-id"] != nil)
            #expect(try await broker.count("accounts") == 0)  // a preflight runs no handler

            let token = try broker.stubs.idToken("google", claims: ["sub": "g-cors"])
            let signIn = try await broker.post("/v1/signin/google", ["idToken": .string(token)], headers: ["Origin": Self.app])
            #expect(signIn.status == 201)
            #expect(signIn.headers["access-control-allow-origin"] == Self.app)
            #expect(signIn.headers["access-control-expose-headers"] == "X-Request-Id, Retry-After")
            #expect(signIn.headers["vary"] == "Origin")
            let refused = try await broker.post("/v1/signin/google", ["idToken": "bad"], headers: ["Origin": Self.app])
            #expect(refused.status == 401)
            #expect(refused.errorCode == "INVALID_TOKEN")
            #expect(refused.headers["access-control-allow-origin"] == Self.app)  // the app can read the error
            #expect(try await broker.count("accounts") == 1)
        }
    }

    @Test(arguments: ["https://evil.example.com", "https://app.example.com.evil.net", "http://app.example.com",
                      "https://APP.example.com", "null"])
    func anyOtherOriginGetsNoCORSHeader(_ origin: String) async throws {
        try await withBroker(configure: Self.allowing([Self.app])) { broker in
            let preflight = try await Self.preflight(broker, origin: origin)
            #expect(preflight.status == 404)
            #expect(preflight.errorCode == "NOT_FOUND")
            #expect(preflight.headers["access-control-allow-origin"] == nil)
            #expect(preflight.headers["access-control-allow-methods"] == nil)
            let health = try await broker.get("/healthz", headers: ["Origin": origin])
            #expect(health.status == 200)
            #expect(health.headers["access-control-allow-origin"] == nil)
            #expect(health.headers["vary"] == "Origin")
        }
    }

    @Test func theAdminAPIIsNeverCrossOrigin() async throws {
        let token = "admin-token-0123456789abcdef"
        try await withBroker(adminToken: token, configure: Self.allowing([Self.app])) { broker in
            let preflight = try await Self.preflight(broker, origin: Self.app, path: "/admin/v1/users")
            #expect(preflight.headers["access-control-allow-origin"] == nil)
            let users = try await broker.get("/admin/v1/users", headers: ["Origin": Self.app, "Authorization": "Bearer \(token)"])
            #expect(users.status == 200)
            #expect(users.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test func offByDefault() async throws {
        try await withBroker { broker in
            let preflight = try await Self.preflight(broker, origin: Self.app)
            #expect(preflight.status == 404)
            #expect(preflight.headers["access-control-allow-origin"] == nil)
            let health = try await broker.get("/healthz", headers: ["Origin": Self.app])
            #expect(health.headers["access-control-allow-origin"] == nil)
            #expect(health.headers["vary"] == nil)
        }
    }

    @Test(arguments: ["*", "https://app.example.com/", "https://app.example.com/path", "app.example.com",
                      "https://App.example.com", "ftp://app.example.com", "https://*.example.com", ""])
    func aConfiguredOriginMustBeExact(_ origin: String) throws {
        let text = #"{"projectId":"p","issuer":"https://auth.example","providers":{},"cors":{"allowedOrigins":[\#(JSONValue.string(origin).serializedText)]}}"#
        let error = #expect(throws: ConfigError.self) { try BrokerConfig(parsing: Array(text.utf8), environment: [:], sections: FirebaseModule.configSections) }
        #expect(error?.field == "cors.allowedOrigins")
    }

    @Test func exactOriginsAreAccepted() throws {
        let text = #"{"projectId":"p","issuer":"https://auth.example","providers":{},"cors":{"allowedOrigins":["https://app.example.com","http://localhost:5173"]}}"#
        let config = try BrokerConfig(parsing: Array(text.utf8), environment: [:], sections: FirebaseModule.configSections)
        #expect(config.corsAllowedOrigins == ["https://app.example.com", "http://localhost:5173"])
    }
}

extension JSONValue {
    /// The value serialized, as text.
    fileprivate var serializedText: String { String(decoding: serialized(), as: UTF8.self) }
}
