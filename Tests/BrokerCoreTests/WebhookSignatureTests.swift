import BrokerCore
import BrokerFirebase
import BrokerModel
import Foundation
import Testing

/// The Standard Webhooks signature the broker puts on hook calls and event deliveries, and the `hooks` and `events`
/// config sections (contract section 16).
@Suite struct WebhookSignatureTests {
    /// The specification's own vector (the reference libraries' tests use it).
    @Test func signsTheSpecificationsVector() throws {
        let secret = try #require(WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signer = WebhookSigner(secret: secret)
        let signature = signer.signature(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func headersCarryTheIDTheWholeSecondAndItsSignature() throws {
        let signer = WebhookSigner(secret: try #require(WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")))
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let headers = signer.headers(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", date: Date(timeIntervalSince1970: 1_614_265_330.9), body: body)
        let named = Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
        #expect(named["webhook-id"] == "msg_p5jXN8AQM9LWM0D4loKWxJek")
        #expect(named["webhook-timestamp"] == "1614265330")
        #expect(named["webhook-signature"] == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(named["content-type"] == "application/json")
        // Another second signs differently: each attempt gets its own timestamp and signature.
        let later = signer.headers(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", date: Date(timeIntervalSince1970: 1_614_265_331), body: body)
        #expect(later.first { $0.name == "webhook-signature" }?.value != named["webhook-signature"])
    }

    @Test func messageIDsAreFresh() {
        let first = WebhookSigner.newMessageID()
        #expect(first.hasPrefix("msg_") && first.count == 28)
        #expect(first != WebhookSigner.newMessageID())
    }

    @Test(arguments: ["", "whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_!!not base64!!"])
    func refusesWhatIsNoSecret(_ text: String) {
        #expect(WebhookSecret(text: text) == nil)
    }

    // MARK: - Config

    static func secretFile(_ text: String = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n") throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-secret-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static func config(_ extra: String, insecure: Bool = false) throws -> BrokerConfig {
        let text =
            #"{"projectId": "p", "issuer": "https://id.example", "providers": {}, "#
            + #""allowInsecureProviderUrls": \#(insecure), \#(extra)}"#
        return try BrokerConfig(parsing: Array(text.utf8), environment: [:], sections: FirebaseModule.configSections)
    }

    @Test func readsHooksWithTheirDefaults() throws {
        let file = try Self.secretFile()
        let config = try Self.config(
            #""hooks": {"beforeCreate": {"url": "https://app.example/create", "secretFile": "\#(file)"}, "#
                + #""beforeSignIn": {"url": "https://app.example/in", "secretFile": "\#(file)", "timeoutMs": 500, "#
                + #""onFailure": "allow"}}"#)
        let create = try #require(config.hooks.beforeCreate)
        #expect(create.url == "https://app.example/create")
        #expect(create.timeout == 2 && create.onFailure == .deny)
        #expect(create.secret == WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signIn = try #require(config.hooks.beforeSignIn)
        #expect(signIn.timeout == 0.5 && signIn.onFailure == .allow)
        #expect(try Self.config(#""cors": {}"#).hooks == .none)
    }

    @Test func readsEventEndpoints() throws {
        let file = try Self.secretFile()
        let config = try Self.config(
            #""events": {"endpoints": [{"url": "https://app.example/events", "secretFile": "\#(file)", "#
                + #""types": ["user.created", "user.deleted", "passkey.added"]}]}"#)
        #expect(config.events.endpoints.count == 1)
        #expect(config.events.endpoints(for: .userCreated).count == 1)
        #expect(config.events.endpoints(for: .userSignedIn).isEmpty)
        #expect(config.events.endpoints.first?.types == [.userCreated, .userDeleted, .passkeyAdded])
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        var name: String
        var section: String
        var field: String
        var testDescription: String { name }
    }

    static let badCases: [BadCase] = [
        BadCase(
            name: "an http hook URL",
            section: #""hooks": {"beforeSignIn": {"url": "http://app.example", "#
                + #""secretFile": "SECRET"}}"#, field: "hooks.beforeSignIn.url"),
        BadCase(
            name: "a hook without a secret", section: #""hooks": {"beforeCreate": {"url": "https://app.example"}}"#,
            field: "hooks.beforeCreate.secretFile"),
        BadCase(
            name: "an unreadable secret file",
            section: #""hooks": {"beforeCreate": {"url": "https://app.example", "#
                + #""secretFile": "/nonexistent/secret"}}"#, field: "hooks.beforeCreate.secretFile"),
        BadCase(
            name: "a secret that is no whsec_",
            section: #""hooks": {"beforeCreate": {"url": "https://app.example", "#
                + #""secretFile": "PLAIN"}}"#, field: "hooks.beforeCreate.secretFile"),
        BadCase(
            name: "a hook secret of one byte",
            section: #""hooks": {"beforeSignIn": {"url": "https://app.example", "#
                + #""secretFile": "SHORT"}}"#, field: "hooks.beforeSignIn.secretFile"),
        BadCase(
            name: "an event secret of one byte",
            section: #""events": {"endpoints": [{"url": "https://app.example", "#
                + #""secretFile": "SHORT", "types": ["user.created"]}]}"#, field: "events.endpoints[0].secretFile"),
        BadCase(
            name: "a timeout out of range",
            section: #""hooks": {"beforeCreate": {"url": "https://app.example", "#
                + #""secretFile": "SECRET", "timeoutMs": 60000}}"#, field: "hooks.beforeCreate.timeoutMs"),
        BadCase(
            name: "an unknown failure policy",
            section: #""hooks": {"beforeCreate": {"url": "https://app.example", "#
                + #""secretFile": "SECRET", "onFailure": "retry"}}"#, field: "hooks.beforeCreate.onFailure"),
        BadCase(
            name: "an unknown hook", section: #""hooks": {"afterSignIn": {}}"#, field: "hooks.afterSignIn"),
        BadCase(
            name: "an http event URL",
            section: #""events": {"endpoints": [{"url": "http://app.example", "#
                + #""secretFile": "SECRET", "types": ["user.created"]}]}"#, field: "events.endpoints[0].url"),
        BadCase(
            name: "an unknown event type",
            section: #""events": {"endpoints": [{"url": "https://app.example", "#
                + #""secretFile": "SECRET", "types": ["user.exploded"]}]}"#, field: "events.endpoints[0].types"),
        BadCase(
            name: "an endpoint without types",
            section: #""events": {"endpoints": [{"url": "https://app.example", "#
                + #""secretFile": "SECRET"}]}"#, field: "events.endpoints[0].types"),
    ]

    @Test(arguments: badCases)
    func refusesABadFieldByName(_ bad: BadCase) throws {
        let section = bad.section.replacingOccurrences(of: "SECRET", with: try Self.secretFile())
            .replacingOccurrences(of: "PLAIN", with: try Self.secretFile("not a secret"))
            .replacingOccurrences(of: "SHORT", with: try Self.secretFile("whsec_QQ==\n"))
        let error = #expect(throws: ConfigError.self) { try Self.config(section) }
        #expect(error?.field == bad.field)
    }

    /// Contract section 16: a secret of fewer than 16 bytes is refused, naming the field and the size, never the key.
    @Test func aSecretNeedsSixteenBytes() throws {
        func section(_ bytes: Int) throws -> String {
            let file = try Self.secretFile("whsec_" + Data(repeating: 0x5A, count: bytes).base64EncodedString())
            return #""hooks": {"beforeCreate": {"url": "https://app.example", "secretFile": "\#(file)"}}"#
        }
        let error = #expect(throws: ConfigError.self) { try Self.config(try section(15)) }
        #expect(error?.field == "hooks.beforeCreate.secretFile")
        #expect(error?.message.contains("15-byte key") == true)
        #expect(error?.message.contains("WlpaWlpa") == false)
        #expect(try Self.config(try section(16)).hooks.beforeCreate?.secret.key.count == 16)
    }

    @Test func httpURLsAreAllowedWithInsecureProviderURLs() throws {
        let file = try Self.secretFile()
        let config = try Self.config(
            #""hooks": {"beforeSignIn": {"url": "http://127.0.0.1:9/in", "secretFile": "\#(file)"}}"#, insecure: true)
        #expect(config.hooks.beforeSignIn?.url == "http://127.0.0.1:9/in")
    }
}
