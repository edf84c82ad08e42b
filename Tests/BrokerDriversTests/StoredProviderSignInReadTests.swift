import BrokerCore
import BrokerCrypto
import BrokerDrivers
import BrokerFirebase
import BrokerHTTP
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// A sign-in with a provider managed at run time, over SQLite, counting what it reads: the provider's row once (the
/// route that finds the provider's credential field and the sign-in share it), and the identity's account once
/// (a first sign-in does not look up again the identity its transaction just found linked to no account).
@Suite struct StoredProviderSignInReadTests {
    static let issuer = "http://oidc.stub.test/oidc"

    /// The native surface over SQLite, a stored provider `acme` of the stub issuer (discovery and keys answered by a
    /// scripted client), and the stubs that mint its tokens.
    static func start() async throws -> (BrokerApp, WatchedSQLDatabase, StubProviders) {
        let stubs = try StubProviders()
        stubs.oidcIssuer = issuer
        let clock = SystemClock()
        let database = WatchedSQLDatabase(try SQLiteDatabase(path: ":memory:"))
        let store = try await SQLBrokerStore(database: database, clock: clock)
        let config = try BrokerConfig(
            parsing: StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9").serialized(), environment: [:],
            sections: FirebaseModule.configSections)
        let client = ScriptedHTTPClient { request in
            switch request.url {
            case issuer + "/.well-known/openid-configuration":
                let discovery: JSONValue = [
                    "issuer": .string(issuer), "jwks_uri": .string(issuer + "/jwks"),
                    "id_token_signing_alg_values_supported": ["RS256"],
                ]
                return HTTPClientResponse(status: 200, body: discovery.serialized())
            case issuer + "/jwks": return HTTPClientResponse(status: 200, body: stubs.oidc.jwks.serialized())
            default: return HTTPClientResponse(status: 404)
            }
        }
        let services = try await BrokerServices.make(
            config: config, store: store, httpClient: client, passwords: SaltedDigestPasswordHasher(), clock: clock,
            logger: Logger(sink: MemoryLogSink()), prefetch: false)
        try await store.createProviderConfig(
            StoredOIDCProvider(
                id: "acme", clientID: "acme-client", issuer: issuer, createdAt: clock.now, updatedAt: clock.now))
        return (BrokerApp(services: services, surfaces: BrokerApp.mainSurfaces(services)), database, stubs)
    }

    static func signIn(_ app: BrokerApp, _ stubs: StubProviders, subject: String) async throws -> HTTPResponse {
        let token = try stubs.oidcIDToken(claims: ["aud": "acme-client", "sub": .string(subject)])
        let body: JSONValue = ["idToken": .string(token)]
        return await app.handle(
            HTTPRequest(
                method: "POST", path: "/v1/signin/acme", headers: ["Content-Type": "application/json"],
                body: body.serialized()))
    }

    /// The statements reading the provider's row, and those looking up the account an identity is linked to.
    @Test(arguments: ["FROM oidc_providers WHERE id = ?", "WHERE k.provider = ? AND k.subject = ?"])
    func eachRowIsReadOncePerSignIn(statement: String) async throws {
        let (app, database, stubs) = try await Self.start()
        for expected in [201, 200] {
            database.count(statement)
            let response = try await Self.signIn(app, stubs, subject: "acme-1")
            #expect(response.status == expected)
            #expect(database.statements == 1)
        }
    }
}
