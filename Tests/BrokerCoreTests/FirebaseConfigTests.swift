import BrokerCore
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The `firebase` keys of providers.json: the admin API's base URL and the custom tokens' lifetime.
@Suite struct FirebaseConfigTests {
    static func config(_ firebase: JSONValue, insecure: Bool = false) throws -> BrokerConfig {
        var document = StubProviders.brokerConfig(stubsAt: "https://stubs.example")
        if case .object(var members) = document {
            members["firebase"] = firebase
            members["allowInsecureProviderUrls"] = .bool(insecure)
            document = .object(members)
        }
        return try BrokerConfig(
            parsing: document.serialized(), environment: [:], sections: FirebaseModule.configSections)
    }

    /// The sections are the Firebase module's (``ConfigSection``): a broker built without it refuses them as any
    /// unknown field, and one built with it reads them.
    @Test func theSectionsAreReadOnlyWhenTheModuleIsNamed() throws {
        let document = StubProviders.brokerConfig(stubsAt: "https://stubs.example")
        let error = #expect(throws: ConfigError.self) {
            try BrokerConfig(parsing: document.serialized(), environment: [:])
        }
        #expect(error?.field == "firebase")
        let read = try BrokerConfig(
            parsing: document.serialized(), environment: ["GOOGLE_APPLICATION_CREDENTIALS": "/secrets/sa.json"],
            sections: FirebaseModule.configSections)
        #expect(read.section(FirebaseSettings.self)?.serviceAccountFile == "/secrets/sa.json")
        #expect(read.sections.count == 1)
    }

    @Test func defaultsAreFirebasesOwnAPIAndAnHour() throws {
        let config = try Self.config(["serviceAccountFile": .null])
        #expect(config.firebaseAPIBaseURL == FirebaseEndpoints.identityToolkitBaseURL)
        #expect(config.customTokenTTL == 3600)
    }

    @Test func theAPIBaseURLFollowsTheHTTPSRule() throws {
        #expect(throws: ConfigError.self) { try Self.config(["apiBaseUrl": "http://127.0.0.1:9099"]) }
        let config = try Self.config(["apiBaseUrl": "http://127.0.0.1:9099"], insecure: true)
        #expect(config.firebaseAPIBaseURL == "http://127.0.0.1:9099")
    }

    @Test(arguments: [0, 59, 3601, -1])
    func theCustomTokenLifetimeIsAtMostAnHour(_ seconds: Int) throws {
        #expect(throws: ConfigError.self) { try Self.config(["customTokenTtlSeconds": .int(Int64(seconds))]) }
    }

    @Test func customTokensLastTheConfiguredLifetime() throws {
        let account = try FirebaseServiceAccount(parsing: try TestServiceAccount.json().serialized())
        let clock = ManualClock()
        let token = try FirebaseCustomTokenMinter(account: account, clock: clock, ttl: 600).mint(uid: AccountID("u1"))
        let claims = try JWT(parsing: token).claims
        #expect(claims["exp"]?.intValue == Int64(clock.now.timeIntervalSince1970) + 600)
    }
}
