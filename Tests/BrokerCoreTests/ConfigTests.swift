import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@Suite struct ConfigTests {
    static let context = ProviderContext(
        httpClient: ScriptedHTTPClient { _ in throw HTTPClientError(.connectionFailed) }, clock: ManualClock(),
        metrics: Metrics(), logger: .disabled, clockSkew: 60, allowInsecureURLs: false)

    /// The shipped providers.json, as a user first sees it.
    static func shipped() throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("providers.json")
        let data = try Data(contentsOf: url)
        return try #require(JSONValue.parse(Array(data)))
    }

    static func build(_ document: JSONValue, environment: [String: String] = [:]) throws -> ProviderRegistry {
        let config = try BrokerConfig(parsing: document.serialized(), environment: environment, sections: FirebaseModule.configSections)
        var context = ConfigTests.context
        context.allowInsecureURLs = config.allowInsecureProviderURLs
        return try ProviderRegistry(config: config, catalog: .builtIn, context: context)
    }

    static func editing(_ document: JSONValue, _ path: [String], _ value: JSONValue?) -> JSONValue {
        guard let key = path.first, case .object(var members) = document else { return document }
        if path.count == 1 {
            members[key] = value
        } else {
            members[key] = editing(members[key] ?? .object([:]), Array(path.dropFirst()), value)
        }
        return .object(members)
    }

    @Test func theShippedConfigIsValid() throws {
        let registry = try Self.build(try Self.shipped())
        #expect(registry.enabled.map(\.rawValue) == ["apple", "google", "kakao"])
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        var path: [String]
        var value: JSONValue?
        var field: String
        var testDescription: String { "\(path.joined(separator: ".")) -> \(field)" }
    }

    static let badCases: [BadCase] = [
        BadCase(path: ["providers", "google", "audiences"], value: [], field: "providers.google.audiences"),
        BadCase(path: ["providers", "google", "audiences"], value: nil, field: "providers.google.audiences"),
        BadCase(path: ["providers", "apple", "audiences"], value: [""], field: "providers.apple.audiences"),
        BadCase(path: ["providers", "kakao", "audiences"], value: "one", field: "providers.kakao.audiences"),
        BadCase(
            path: ["providers", "google", "jwksUrl"], value: "http://www.googleapis.com/oauth2/v3/certs",
            field: "providers.google.jwksUrl"),
        BadCase(path: ["providers", "apple", "jwksUrl"], value: "not a url", field: "providers.apple.jwksUrl"),
        BadCase(path: ["providers", "kakao", "apiBaseUrl"], value: "http://kapi.kakao.com", field: "providers.kakao.apiBaseUrl"),
        BadCase(path: ["providers", "kakao", "appId"], value: "abc", field: "providers.kakao.appId"),
        BadCase(path: ["providers", "kakao", "appId"], value: nil, field: "providers.kakao.appId"),
        BadCase(path: ["providers", "kakao", "accountMapping"], value: "merge", field: "providers.kakao.accountMapping"),
        BadCase(
            path: ["providers", "google", "accountMapping"], value: "email-password",
            field: "providers.google.accountMapping"),
        BadCase(path: ["providers", "apple", "nonce"], value: "sometimes", field: "providers.apple.nonce"),
        BadCase(path: ["providers", "google", "audience"], value: ["x"], field: "providers.google.audience"),
        BadCase(path: ["providers", "google", "enabled"], value: "yes", field: "providers.google.enabled"),
        BadCase(path: ["providers", "facebook"], value: ["enabled": true], field: "providers.facebook"),
        BadCase(path: ["providers"], value: nil, field: "providers"),
        BadCase(path: ["projectId"], value: nil, field: "projectId"),
        BadCase(path: ["issuer"], value: "nowhere", field: "issuer"),
        BadCase(path: ["clockSkewSeconds"], value: -1, field: "clockSkewSeconds"),
        BadCase(path: ["sessions", "idTokenTtlSeconds"], value: 0, field: "sessions.idTokenTtlSeconds"),
        BadCase(path: ["linking", "byVerifiedEmail"], value: "no", field: "linking.byVerifiedEmail"),
        BadCase(path: ["allowInsecureProviderUrls"], value: 1, field: "allowInsecureProviderUrls"),
        BadCase(path: ["unexpected"], value: 1, field: "unexpected"),
    ]

    @Test(arguments: badCases)
    func refusesABadFieldByName(_ bad: BadCase) throws {
        let document = Self.editing(try Self.shipped(), bad.path, bad.value)
        let error = #expect(throws: ConfigError.self) { try Self.build(document) }
        #expect(error?.field == bad.field)
    }

    @Test func insecureURLsAreAllowedOnlyWhenAsked() throws {
        var document = Self.editing(try Self.shipped(), ["providers", "google", "jwksUrl"], "http://127.0.0.1:9/google/jwks")
        #expect(throws: ConfigError.self) { try Self.build(document) }
        document = Self.editing(document, ["allowInsecureProviderUrls"], true)
        _ = try Self.build(document)
    }

    @Test func aDisabledProviderIsNotValidatedOrServed() throws {
        var document = Self.editing(try Self.shipped(), ["providers", "google", "enabled"], false)
        document = Self.editing(document, ["providers", "google", "audiences"], [])
        let registry = try Self.build(document)
        #expect(registry.provider(ProviderID("google")) == nil)
        #expect(registry.provider(ProviderID("apple")) != nil)
    }

    @Test func theServiceAccountComesFromConfigOrEnvironment() throws {
        let shipped = try Self.shipped()
        let fromEnvironment = try BrokerConfig(
            parsing: shipped.serialized(), environment: ["GOOGLE_APPLICATION_CREDENTIALS": "/secrets/sa.json"],
            sections: FirebaseModule.configSections)
        #expect(fromEnvironment.firebaseServiceAccountFile == "/secrets/sa.json")
        let document = Self.editing(shipped, ["firebase", "serviceAccountFile"], "/etc/broker/sa.json")
        let fromConfig = try BrokerConfig(
            parsing: document.serialized(), environment: ["GOOGLE_APPLICATION_CREDENTIALS": "/secrets/sa.json"],
            sections: FirebaseModule.configSections)
        #expect(fromConfig.firebaseServiceAccountFile == "/etc/broker/sa.json")
        #expect(try BrokerConfig(parsing: shipped.serialized(), environment: [:], sections: FirebaseModule.configSections).firebaseServiceAccountFile == nil)
    }

    @Test func defaultsApply() throws {
        let config = try BrokerConfig(parsing: Array(#"{"projectId":"p","issuer":"https://auth.example","providers":{}}"#.utf8), environment: [:], sections: FirebaseModule.configSections)
        #expect(config.clockSkew == 60)
        #expect(config.idTokenTTL == 3600)
        #expect(config.refreshTokenTTL == 30 * 86_400)
        #expect(config.linkByVerifiedEmail == false)
        #expect(config.allowInsecureProviderURLs == false)
    }
}
