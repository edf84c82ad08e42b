import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The config entries of Naver, LINE and generic OIDC providers (contract section 2, "More providers").
@Suite struct MoreProvidersConfigTests {
    static func document(_ providers: [String: JSONValue]) -> JSONValue {
        ["projectId": "p", "issuer": "https://auth.example", "providers": .object(providers)]
    }

    static func build(_ providers: [String: JSONValue]) throws -> ProviderRegistry {
        try ConfigTests.build(document(providers))
    }

    @Test func minimalEntriesTakeTheContractDefaults() throws {
        let registry = try Self.build([
            "naver": ["enabled": true], "line": ["channelId": "1650000000"],
            "corp": ["type": "oidc", "issuer": "https://login.example.com/tenant/v2.0", "audiences": ["client"]],
            "partner": ["type": "oidc", "issuer": "https://id.partner.example/", "audiences": ["client"], "algorithms": ["ES256"]],
        ])
        #expect(registry.enabled.map(\.rawValue) == ["corp", "line", "naver", "partner"])
        // Contract section 11 (docs/firebase.md, "Provider ids"): `oidc.<id>` for an identity an ID token linked,
        // `<id>` for one an access token linked; Naver (access tokens only) is `naver`.
        #expect(registry.firebaseID(of: ProviderID("corp"), kind: .idToken) == "oidc.corp")
        #expect(registry.firebaseID(of: ProviderID("line"), kind: .idToken) == "oidc.line")
        #expect(registry.firebaseID(of: ProviderID("line"), kind: .accessToken) == "line")
        #expect(registry.firebaseID(of: ProviderID("naver"), kind: .accessToken) == "naver")
        // A legacy identity (no stored kind): `<id>` for a provider of access tokens only, else `oidc.<id>`.
        #expect(registry.firebaseID(of: ProviderID("naver"), kind: nil) == "naver")
        #expect(registry.firebaseID(of: ProviderID("line"), kind: nil) == "oidc.line")
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        var name: String
        var entry: JSONValue
        var field: String
        var message: String? = nil
        var testDescription: String { name }
    }

    static let badCases: [BadCase] = [
        BadCase(name: "HS256", entry: ["type": "oidc", "issuer": "https://i.example", "audiences": ["c"], "algorithms": ["HS256"]],
                field: "providers.x.algorithms", message: "never accepted"),
        BadCase(name: "none", entry: ["type": "oidc", "issuer": "https://i.example", "audiences": ["c"], "algorithms": ["none"]],
                field: "providers.x.algorithms", message: "never accepted"),
        BadCase(name: "empty algorithms", entry: ["type": "oidc", "issuer": "https://i.example", "audiences": ["c"], "algorithms": []],
                field: "providers.x.algorithms"),
        BadCase(name: "lower-case rs256", entry: ["type": "oidc", "issuer": "https://i.example", "audiences": ["c"], "algorithms": ["rs256"]],
                field: "providers.x.algorithms"),
        BadCase(name: "no audiences", entry: ["type": "oidc", "issuer": "https://i.example"], field: "providers.x.audiences"),
        BadCase(name: "no issuer", entry: ["type": "oidc", "audiences": ["c"]], field: "providers.x.issuer"),
        BadCase(name: "http issuer", entry: ["type": "oidc", "issuer": "http://i.example", "audiences": ["c"]], field: "providers.x.issuer"),
        BadCase(name: "jwksUrl is discovered", entry: ["type": "oidc", "issuer": "https://i.example", "audiences": ["c"], "jwksUrl": "https://k"],
                field: "providers.x.jwksUrl"),
        BadCase(name: "trustEmail not a boolean", entry: ["type": "oidc", "issuer": "https://i.example", "audiences": ["c"], "trustEmail": "yes"],
                field: "providers.x.trustEmail"),
        BadCase(name: "line without channelId", entry: ["type": "line"], field: "providers.x.channelId"),
        BadCase(name: "line channelId not digits", entry: ["type": "line", "channelId": "abc"], field: "providers.x.channelId"),
        BadCase(name: "line http apiBaseUrl", entry: ["type": "line", "channelId": "1", "apiBaseUrl": "http://api.line.me"],
                field: "providers.x.apiBaseUrl"),
        BadCase(name: "line algorithms are pinned", entry: ["type": "line", "channelId": "1", "algorithms": ["RS256"]],
                field: "providers.x.algorithms"),
        BadCase(name: "naver unknown field", entry: ["type": "naver", "clientId": "x"], field: "providers.x.clientId"),
        BadCase(name: "naver http apiBaseUrl", entry: ["type": "naver", "apiBaseUrl": "http://openapi.naver.com"],
                field: "providers.x.apiBaseUrl"),
    ]

    @Test(arguments: badCases)
    func refusesABadEntryByField(_ bad: BadCase) throws {
        let error = #expect(throws: ConfigError.self) { try Self.build(["x": bad.entry]) }
        #expect(error?.field == bad.field)
        if let message = bad.message { #expect(error?.message.contains(message) == true) }
    }

    @Test func oidcIsATypeButNotAnID() throws {
        let error = #expect(throws: ConfigError.self) {
            try Self.build(["oidc": ["type": "oidc", "issuer": "https://i.example", "audiences": ["c"]]])
        }
        #expect(error?.field == "providers.oidc")
    }
}
