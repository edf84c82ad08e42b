import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The OpenID Connect providers managed at run time (issue 33, contract section 11) signing in: created through the
/// admin API, used natively (`/v1/signin/<id>`) and on the compatibility listener (`oidc.<id>`), refused once
/// disabled or deleted, the config file's listed read-only.
@Suite struct StoredOIDCProviderTests {
    static let token = "stored-provider-admin-token-0123456789"
    static let bearer = ["Authorization": "Bearer \(token)"]
    static let clientID = "run-time-client"

    static func withBroker(_ body: (BrokerHarness) async throws -> Void) async throws {
        let harness = try await BrokerHarness.start(
            firebase: true, adminToken: token, cipher: OutboxCipher(key: try AESGCMKey(bytes: SecureRandom.bytes(32))))
        try await harness.stopping(after: body)
    }

    /// Creates `acme` (the stub issuer, audience ``clientID``) through the admin API.
    static func create(_ broker: BrokerHarness, id: String = "acme") async throws -> TestResponse {
        try await broker.request(
            "POST", "/admin/v1/providers",
            json: [
                "id": .string(id), "clientId": .string(clientID), "issuer": .string(broker.stubs.oidcIssuer),
                "enabled": true, "displayName": "Acme", "clientSecret": "acme-secret",
            ], headers: bearer)
    }

    static func acmeToken(_ broker: BrokerHarness, sub: String = "acme-user-1") throws -> String {
        try broker.stubs.oidcIDToken(claims: ["aud": .string(clientID), "sub": .string(sub), "email": "a@acme.example"])
    }

    static func idp(_ broker: BrokerHarness, providerID: String, token: String) async throws -> TestResponse {
        try await broker.firebase(
            "POST", FirebaseEndpoints.identityToolkitPath + "/accounts:signInWithIdp?key=k",
            json: [
                "postBody": .string("providerId=\(providerID)&id_token=\(token)"), "requestUri": "http://localhost",
                "returnSecureToken": true,
            ])
    }

    @Test func aCreatedProviderSignsInThroughBothDoorsWithItsClientIDAsAudience() async throws {
        try await Self.withBroker { broker in
            let made = try await Self.create(broker)
            #expect(made.status == 201)
            #expect(made.json?["id"] == "acme" && made.json?["readOnly"] == false)
            #expect(made.json?["hasClientSecret"] == true && made.json?["clientSecret"] == nil)
            // Creating fetched nothing: only the config file's provider's discovery (at start) so far.
            let before = broker.stubs.callCount("oidc")

            let native = try await broker.oidcSignIn(try Self.acmeToken(broker), provider: "acme")
            #expect(native.status == 201)
            let identity = native.json?["user"]?["identities"]?.arrayValue?.first
            #expect(identity?["provider"] == "acme" && identity?["subject"] == "acme-user-1")
            // Its email is not vouched for (an issuer added at run time links no account by its address).
            #expect(native.json?["user"]?["emailVerified"] == false)
            #expect(broker.stubs.callCount("oidc") > before)

            // Another client's token (the config file's audience) is refused.
            let other = try await broker.oidcSignIn(
                try broker.stubs.oidcIDToken(claims: ["sub": "x"]), provider: "acme")
            #expect(other.status == 401)
            #expect(other.errorCode == "INVALID_AUDIENCE")

            let listener = try await Self.idp(broker, providerID: "oidc.acme", token: try Self.acmeToken(broker))
            #expect(listener.status == 200)
            #expect(listener.json?["providerId"] == "oidc.acme")
            #expect(listener.json?["localId"]?.stringValue == native.uid)
            #expect(listener.json?["isNewUser"] == false)
            let idToken = try #require(listener.json?["idToken"]?.stringValue)
            let claims = try #require(JWKSVerification.claims(of: idToken, jwks: try await broker.jwks()))
            #expect(claims["firebase"]?["sign_in_provider"] == "oidc.acme")
            #expect(claims["firebase"]?["identities"]?["oidc.acme"] == ["acme-user-1"])
            #expect(try await broker.count("accounts") == 1)

            // The Admin SDK's deleteProvider names it oidc.acme too.
            let uid = try #require(native.uid)
            let project = broker.services.config.projectID
            let unlinked = try await broker.firebase(
                "POST", FirebaseEndpoints.identityToolkitPath + "/projects/\(project)/accounts:update",
                json: ["localId": .string(uid), "deleteProvider": ["oidc.acme"]],
                headers: ["Authorization": "Bearer owner"])
            #expect(unlinked.status == 200)
            #expect(try await broker.store.account(id: AccountID(uid))?.identities.isEmpty == true)
        }
    }

    @Test func aDisabledOrDeletedProviderSignsNobodyIn() async throws {
        try await Self.withBroker { broker in
            #expect(try await Self.create(broker).status == 201)
            #expect(try await broker.oidcSignIn(try Self.acmeToken(broker), provider: "acme").status == 201)
            let sessions = try await broker.count("refresh_tokens")

            let disabled = try await broker.request(
                "PATCH", "/admin/v1/providers/acme", json: ["enabled": false], headers: Self.bearer)
            #expect(disabled.status == 200 && disabled.json?["enabled"] == false)
            for (sub, step) in [("acme-user-1", "disabled"), ("acme-user-2", "disabled")] {
                let refused = try await broker.oidcSignIn(try Self.acmeToken(broker, sub: sub), provider: "acme")
                #expect(refused.status == 404, "\(step)")
                #expect(refused.errorCode == "PROVIDER_NOT_ENABLED", "\(step)")
                let listener = try await Self.idp(broker, providerID: "oidc.acme", token: try Self.acmeToken(broker))
                #expect(listener.status == 400)
                #expect(FirebaseListenerTests.code(listener) == "INVALID_PROVIDER_ID")
            }
            #expect(try await broker.count("accounts") == 1)
            #expect(try await broker.count("refresh_tokens") == sessions)

            let deleted = try await broker.request("DELETE", "/admin/v1/providers/acme", headers: Self.bearer)
            #expect(deleted.status == 204)
            #expect(try await broker.get("/admin/v1/providers/acme", headers: Self.bearer).status == 404)
            let refused = try await broker.oidcSignIn(try Self.acmeToken(broker, sub: "acme-user-3"), provider: "acme")
            #expect(refused.status == 404)
            #expect(refused.errorCode == "PROVIDER_NOT_ENABLED")
            let listener = try await Self.idp(broker, providerID: "oidc.acme", token: try Self.acmeToken(broker))
            #expect(FirebaseListenerTests.code(listener) == "INVALID_PROVIDER_ID")
            #expect(try await broker.count("accounts") == 1)
            #expect(try await broker.count("refresh_tokens") == sessions)

            let events = try await broker.store.auditEvents(
                matching: AuditFilter(action: .providerConfig), before: nil, limit: 10)
            #expect(events.map(\.outcome).sorted() == ["created", "deleted", "updated"])
            #expect(events.allSatisfy { $0.provider == "oidc.acme" && $0.actor == .admin })
        }
    }

    @Test func theConfigFilesProvidersAreListedReadOnlyAndTheirIdsCannotBeTaken() async throws {
        try await Self.withBroker { broker in
            let listed = try await broker.get("/admin/v1/providers", headers: Self.bearer)
            #expect(listed.status == 200)
            let corp = listed.json?["providers"]?.arrayValue?.first { $0["id"] == "corp" }
            #expect(corp?["readOnly"] == true)
            #expect(corp?["clientId"]?.stringValue == StubProviders.oidcAudience)
            #expect(corp?["issuer"]?.stringValue == broker.stubs.oidcIssuer)

            let taken = try await Self.create(broker, id: "corp")
            #expect(taken.status == 400)
            #expect(taken.errorCode == "INVALID_REQUEST")
            let change = try await broker.request(
                "PATCH", "/admin/v1/providers/corp", json: ["enabled": false], headers: Self.bearer)
            #expect(change.status == 400)
            #expect(change.errorCode == "INVALID_REQUEST")
            let delete = try await broker.request("DELETE", "/admin/v1/providers/corp", headers: Self.bearer)
            #expect(delete.status == 400)
            #expect(try await broker.oidcSignIn(try broker.stubs.oidcIDToken()).status == 201)

            // On the listener: listed, read, and refused a change.
            let project = broker.services.config.projectID
            let configs = FirebaseEndpoints.identityToolkitV2Path + "/projects/\(project)/oauthIdpConfigs"
            let owner = ["Authorization": "Bearer owner"]
            let page = try await broker.firebase("GET", configs, headers: owner)
            #expect(
                page.json?["oauthIdpConfigs"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
                    "projects/\(project)/oauthIdpConfigs/oidc.corp"
                ])
            let patch = try await broker.firebase(
                "PATCH", configs + "/oidc.corp?updateMask=enabled", json: ["enabled": false], headers: owner)
            #expect(FirebaseListenerTests.code(patch) == "OPERATION_NOT_ALLOWED")
            let gone = try await broker.firebase("DELETE", configs + "/oidc.corp", headers: owner)
            #expect(FirebaseListenerTests.code(gone) == "OPERATION_NOT_ALLOWED")
            #expect(try await broker.store.providerConfigs().isEmpty)
            #expect(
                try await broker.store.auditEvents(
                    matching: AuditFilter(action: .providerConfig), before: nil, limit: 5
                )
                .isEmpty)
        }
    }
}
