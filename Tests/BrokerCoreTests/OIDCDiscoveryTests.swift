import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The generic OIDC provider's discovery document: fetched at start, cached like JWKS, issuer compared exactly.
@Suite struct OIDCDiscoveryTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    static let issuer = "https://idp.example/tenant"

    func discovery(_ client: ScriptedHTTPClient, insecure: Bool = false) -> OIDCDiscovery {
        OIDCDiscovery(
            issuer: Self.issuer, provider: "corp", client: client, clock: clock, metrics: Metrics(), logger: .disabled,
            allowInsecureURLs: insecure)
    }

    static func document(issuer: String = issuer, jwks: String = issuer + "/keys", maxAge: Int = 600) -> HTTPClientResponse {
        ScriptedHTTPClient.json(
            200, ["issuer": .string(issuer), "jwks_uri": .string(jwks)], headers: ["Cache-Control": "max-age=\(maxAge)"])
    }

    @Test func theDocumentIsFetchedOnceAndCachedForItsMaxAge() async throws {
        let client = ScriptedHTTPClient { _ in Self.document() }
        let discovery = discovery(client)
        await discovery.prefetch()
        #expect(client.requests.map(\.url) == [Self.issuer + "/.well-known/openid-configuration"])
        #expect(try await discovery.jwksURI() == Self.issuer + "/keys")
        clock.advance(by: 599)
        #expect(try await discovery.jwksURI() == Self.issuer + "/keys")
        #expect(client.requests.count == 1)
        clock.advance(by: 2)
        client.respond(with: { _ in Self.document(jwks: Self.issuer + "/keys-2") })
        #expect(try await discovery.jwksURI() == Self.issuer + "/keys-2")
        #expect(client.requests.count == 2)
    }

    @Test func aFailureAtStartIsRetriedByTheNextSignIn() async throws {
        let client = ScriptedHTTPClient { _ in throw HTTPClientError(.connectionFailed) }
        let discovery = discovery(client)
        await discovery.prefetch()
        let error = await #expect(throws: ProviderError.self) { try await discovery.jwksURI() }
        #expect(error?.code == .unavailable)
        client.respond(with: { _ in Self.document() })
        #expect(try await discovery.jwksURI() == Self.issuer + "/keys")
        #expect(client.requests.count == 3)
    }

    @Test func aCachedDocumentOutlivesTheIssuerGoingDown() async throws {
        let client = ScriptedHTTPClient { _ in Self.document(maxAge: 60) }
        let discovery = discovery(client)
        await discovery.prefetch()
        client.respond(with: { _ in ScriptedHTTPClient.json(503, [:]) })
        clock.advance(by: 61)
        #expect(try await discovery.jwksURI() == Self.issuer + "/keys")
        // The next try waits 30 s rather than making every sign-in wait on a dead issuer.
        #expect(try await discovery.jwksURI() == Self.issuer + "/keys")
        #expect(client.requests.count == 2)
    }

    @Test(arguments: [
        ("https://idp.example/tenant/", "https://idp.example/tenant/keys", ProviderError.Code.misconfigured),
        ("https://evil.example", "https://idp.example/tenant/keys", .misconfigured),
        (issuer, "http://idp.example/tenant/keys", .unavailable),
        (issuer, "not a url", .unavailable),
    ])
    func aDocumentNamingAnotherIssuerOrABadJWKSURIIsRefused(issuer: String, jwks: String, code: ProviderError.Code) async throws {
        let client = ScriptedHTTPClient { _ in Self.document(issuer: issuer, jwks: jwks) }
        let error = await #expect(throws: ProviderError.self) { try await discovery(client).jwksURI() }
        #expect(error?.code == code)
    }

    @Test func checkConfigBuildsTheProviderWithoutFetching() throws {
        let client = ScriptedHTTPClient { _ in Self.document() }
        let document: JSONValue = [
            "projectId": "p", "issuer": "https://auth.example",
            "providers": ["corp": ["type": "oidc", "issuer": .string(Self.issuer), "audiences": ["c"]]],
        ]
        let config = try BrokerConfig(parsing: document.serialized(), environment: [:], sections: FirebaseModule.configSections)
        let context = ProviderContext(
            httpClient: client, clock: clock, metrics: Metrics(), logger: .disabled, clockSkew: 60,
            allowInsecureURLs: false)
        let registry = try ProviderRegistry(config: config, catalog: .builtIn, context: context)
        #expect(registry.enabled == [ProviderID("corp")])
        #expect(client.requests.isEmpty)
    }
}
