import BrokerCore
import BrokerCrypto
import BrokerFirebase
import BrokerHTTP
import BrokerModel
import BrokerStorage
import BrokerTesting
import Foundation
import Testing

/// The Admin SDK's OpenID Connect provider configs on the compatibility listener (`…/v2/projects/{p}/
/// oauthIdpConfigs`, issue 33): Firebase's fields, the client secret sealed at rest and answered back, each
/// change audited, and the state after each refused call.
@Suite struct FirebaseProviderConfigRoutesTests {
    static let configs = FirebaseEndpoints.identityToolkitV2Path + "/projects/stub-project/oauthIdpConfigs"
    static let owner = ["Host": "127.0.0.1:9099", "Authorization": "Bearer owner"]

    /// The listener of the admin routes' tests, with a sealing key unless `sealing` is false.
    struct Listener {
        let firebase: FirebaseAdminRoutesTests.Firebase

        init(sealing: Bool = true) async throws {
            let cipher = sealing ? OutboxCipher(key: try AESGCMKey(bytes: SecureRandom.bytes(32))) : nil
            firebase = try await FirebaseAdminRoutesTests.Firebase(cipher: cipher)
        }

        func send(
            _ method: String, _ path: String = "", _ body: JSONValue? = nil, query: [String: String] = [:],
            headers: [String: String] = FirebaseProviderConfigRoutesTests.owner
        ) async -> (status: Int, json: JSONValue?) {
            await firebase.send(
                method, FirebaseProviderConfigRoutesTests.configs + path, body, query: query, headers: headers)
        }

        var app: BrokerApp { firebase.app }
        var store: MemoryBrokerStore { firebase.store }
    }

    static func code(_ json: JSONValue?) -> String? {
        json?["error"]?["message"]?.stringValue.map { String($0.split(separator: " ", maxSplits: 1).first ?? "") }
    }

    static let created: JSONValue = [
        "clientId": "client-1", "issuer": "https://issuer.example.com", "displayName": "Example", "enabled": true,
        "clientSecret": "s3cret", "responseType": ["idToken": true, "code": true],
    ]

    @Test func aConfigIsCreatedReadListedUpdatedAndDeletedWithItsSecretSealed() async throws {
        let listener = try await Listener()
        let made = await listener.send("POST", "", Self.created, query: ["oauthIdpConfigId": "oidc.example"])
        #expect(made.status == 200)
        #expect(made.json?["name"] == "projects/stub-project/oauthIdpConfigs/oidc.example")
        #expect(made.json?["clientId"] == "client-1")
        #expect(made.json?["issuer"] == "https://issuer.example.com")
        #expect(made.json?["displayName"] == "Example")
        #expect(made.json?["enabled"] == true)
        #expect(made.json?["clientSecret"] == "s3cret")
        #expect(made.json?["responseType"] == ["idToken": true, "code": true])
        // Stored sealed, never in clear.
        let stored = try #require(await listener.store.providerConfig(id: "example"))
        let sealed = try #require(stored.sealedClientSecret)
        #expect(!sealed.contains("s3cret"))
        #expect(stored.clientID == "client-1" && stored.enabled && stored.codeResponse)

        let read = await listener.send("GET", "/oidc.example")
        #expect(read.status == 200)
        #expect(read.json == made.json)

        let updated = await listener.send(
            "PATCH", "/oidc.example", ["displayName": .null, "enabled": false, "clientId": "client-2"],
            query: ["updateMask": "displayName,enabled,clientId"])
        #expect(updated.status == 200)
        #expect(updated.json?["displayName"] == nil)
        #expect(updated.json?["enabled"] == false)
        #expect(updated.json?["clientId"] == "client-2")
        #expect(updated.json?["clientSecret"] == "s3cret")
        let after = try #require(await listener.store.providerConfig(id: "example"))
        #expect(after.clientID == "client-2" && !after.enabled && after.displayName == nil)

        _ = await listener.send(
            "POST", "", ["clientId": "c", "issuer": "https://a.example.com"], query: ["oauthIdpConfigId": "oidc.alpha"])
        let first = await listener.send("GET", query: ["pageSize": "1"])
        #expect(first.status == 200)
        #expect(first.json?["oauthIdpConfigs"]?.arrayValue?.compactMap { $0["clientId"]?.stringValue } == ["c"])
        let token = try #require(first.json?["nextPageToken"]?.stringValue)
        // The config file's OIDC provider (`corp`) is listed too, in its place by id.
        let second = await listener.send("GET", query: ["pageSize": "1", "pageToken": token])
        #expect(
            second.json?["oauthIdpConfigs"]?.arrayValue?.compactMap { $0["clientId"]?.stringValue } == [
                StubProviders.oidcAudience
            ])
        let last = try #require(second.json?["nextPageToken"]?.stringValue)
        let third = await listener.send("GET", query: ["pageSize": "1", "pageToken": last])
        #expect(third.json?["oauthIdpConfigs"]?.arrayValue?.compactMap { $0["clientId"]?.stringValue } == ["client-2"])
        #expect(third.json?["nextPageToken"] == nil)

        let deleted = await listener.send("DELETE", "/oidc.example")
        #expect(deleted.status == 200)
        #expect(await listener.store.providerConfig(id: "example") == nil)
        let gone = await listener.send("GET", "/oidc.example")
        #expect(gone.status == 404)
        #expect(Self.code(gone.json) == "CONFIGURATION_NOT_FOUND")
        #expect(Self.code(await listener.send("DELETE", "/oidc.example").json) == "CONFIGURATION_NOT_FOUND")

        let events = await listener.store.auditEvents(
            matching: AuditFilter(action: .providerConfig), before: nil, limit: 10)
        #expect(events.map(\.outcome).sorted() == ["created", "created", "deleted", "updated"])
        #expect(events.allSatisfy { $0.actor == .admin })
        #expect(Set(events.compactMap(\.provider)) == ["oidc.example", "oidc.alpha"])
    }

    static let refusedCreates: [(String, JSONValue, String)] = [
        ("oidc.example", JSONValue.object(["issuer": "https://issuer.example.com"]), "MISSING_CLIENT_ID"),
        ("oidc.example", ["clientId": "c"], "MISSING_ISSUER"),
        ("oidc.example", ["clientId": "c", "issuer": "http://issuer.example.com"], "INVALID_CONFIG"),
        (
            "oidc.example", ["clientId": "c", "issuer": "https://i.example.com", "responseType": ["code": true]],
            "INVALID_CONFIG"
        ),
        (
            "oidc.example", ["clientId": "c", "issuer": "https://i.example.com", "responseType": ["idToken": false]],
            "INVALID_CONFIG"
        ),
        ("saml.example", ["clientId": "c", "issuer": "https://i.example.com"], "INVALID_PROVIDER_ID"),
        ("oidc.Bad_Id", ["clientId": "c", "issuer": "https://i.example.com"], "INVALID_PROVIDER_ID"),
        ("oidc.password", ["clientId": "c", "issuer": "https://i.example.com"], "INVALID_PROVIDER_ID"),
        ("oidc.google", ["clientId": "c", "issuer": "https://i.example.com"], "CONFIGURATION_EXISTS"),
    ]

    @Test(arguments: refusedCreates)
    func aRefusedCreateStoresNothing(id: String, body: JSONValue, code: String) async throws {
        let listener = try await Listener()
        let refused = await listener.send("POST", "", body, query: ["oauthIdpConfigId": id])
        #expect(refused.status >= 400)
        #expect(Self.code(refused.json) == code)
        #expect(await listener.store.providerConfigs().isEmpty)
        #expect(
            await listener.store.auditEvents(matching: AuditFilter(action: .providerConfig), before: nil, limit: 5)
                .isEmpty)
    }

    @Test func aTakenIdAnUnsealableSecretAndSAMLAreRefused() async throws {
        let listener = try await Listener()
        #expect(
            await listener.send("POST", "", Self.created, query: ["oauthIdpConfigId": "oidc.example"]).status == 200)
        let again = await listener.send(
            "POST", "", ["clientId": "other", "issuer": "https://o.example.com"],
            query: ["oauthIdpConfigId": "oidc.example"])
        #expect(again.status == 409)
        #expect(Self.code(again.json) == "CONFIGURATION_EXISTS")
        #expect(await listener.store.providerConfig(id: "example")?.clientID == "client-1")

        // Without BROKER_ENCRYPTION_KEY a client secret cannot be kept sealed: refused, nothing stored.
        let keyless = try await Listener(sealing: false)
        let secret = await keyless.send("POST", "", Self.created, query: ["oauthIdpConfigId": "oidc.example"])
        #expect(Self.code(secret.json) == "OPERATION_NOT_ALLOWED")
        #expect(await keyless.store.providerConfigs().isEmpty)

        let saml = await listener.app.handle(
            HTTPRequest(
                method: "POST",
                path: FirebaseEndpoints.identityToolkitV2Path + "/projects/stub-project/inboundSamlConfigs",
                query: ["inboundSamlConfigId": "saml.x"],
                headers: Self.owner.merging(["Content-Type": "application/json"]) { a, _ in a },
                body: Array("{}".utf8)))
        #expect(saml.status == 400)
        #expect(Self.code(JSONValue.parse(saml.body)) == "OPERATION_NOT_ALLOWED")

        // Without Bearer owner nothing is done.
        let anonymous = await listener.send("DELETE", "/oidc.example", headers: ["Host": "127.0.0.1:9099"])
        #expect(anonymous.status >= 400)
        #expect(await listener.store.providerConfig(id: "example") != nil)
    }
}
