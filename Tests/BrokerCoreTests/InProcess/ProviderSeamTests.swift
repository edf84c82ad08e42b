import BrokerCore
import BrokerIdentity
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The seams a provider plugs into: a catalog type serving several config entries, the sign-in flow through
/// `verify`, and webhook routes reporting account events.
@Suite struct ProviderSeamTests {
    /// A provider for tests: an access token `user-<n>` is user `n`; its webhook reports a revoked consent.
    struct EchoProvider: WebhookProviding, IdentityProviderFactory {
        static let type = "echo"
        let id: ProviderID
        let credentialKinds: Set<CredentialKind> = [.accessToken]

        static func make(id: ProviderID, config: ConfigReader, context: ProviderContext) throws -> any IdentityProvider {
            try config.allowOnly(["type", "enabled"])
            return EchoProvider(id: id)
        }

        func verify(_ credential: Credential, hints: CredentialHints) async throws -> VerifiedIdentity {
            guard case .accessToken(let token) = credential, token.hasPrefix("user-") else {
                throw ProviderError(.invalidToken, "not an echo token")
            }
            return VerifiedIdentity(identity: ExternalIdentity(provider: id, subject: String(token.dropFirst(5))))
        }

        var webhookRoutes: [WebhookRoute] {
            [
                WebhookRoute(method: "POST", path: "/unlink") { request, context, lifecycle in
                    let subject = request.query["user_id"] ?? ""
                    try await lifecycle.handle(.consentRevoked(provider: id, subject: subject), requestID: context.requestID)
                    return HTTPResponse(status: 200)
                }
            ]
        }
    }

    final class RecordingLifecycle: ProviderLifecycle, @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [ProviderAccountEvent] = []
        var events: [ProviderAccountEvent] { lock.withLock { recorded } }
        func handle(_ event: ProviderAccountEvent, requestID: String) async throws {
            lock.withLock { recorded.append(event) }
        }
    }

    static func start(lifecycle: (any ProviderLifecycle)?) async throws -> InProcessBroker {
        try await InProcessBroker.start(
            catalog: ProviderCatalog([EchoProvider.self]), lifecycle: lifecycle, withoutLifecycle: lifecycle == nil,
            configure: { document in
                guard case .object(var members) = document else { return document }
                members["providers"] = ["echo-a": ["type": "echo"], "echo-b": ["type": "echo"], "echo": [:]]
                return .object(members)
            })
    }

    @Test func oneTypeServesSeveralEntriesEachItsOwnProvider() async throws {
        let broker = try await Self.start(lifecycle: nil)
        let a = await broker.post("/v1/signin/echo-a", ["accessToken": "user-1"])
        let b = await broker.post("/v1/signin/echo-b", ["accessToken": "user-1"])
        let plain = await broker.post("/v1/signin/echo", ["accessToken": "user-1"])
        #expect([a.status, b.status, plain.status] == [Int](repeating: 201, count: 3))
        #expect(a.json?["user"]?["identities"]?.arrayValue?.first?["provider"]?.stringValue == "echo-a")
        #expect(a.json?["user"]?["uid"] != b.json?["user"]?["uid"])
        // A type the catalog does not have is refused at start, naming the field.
        await #expect(throws: ConfigError.self) {
            _ = try await InProcessBroker.start(catalog: ProviderCatalog([EchoProvider.self]))
        }
    }

    @Test func webhookRoutesMountUnderTheProvidersIDAndReportEvents() async throws {
        let lifecycle = RecordingLifecycle()
        let broker = try await Self.start(lifecycle: lifecycle)
        let response = await broker.request("POST", "/v1/webhooks/echo-b/unlink?user_id=42")
        #expect(response.status == 200)
        #expect(lifecycle.events == [.consentRevoked(provider: ProviderID("echo-b"), subject: "42")])
        #expect(await broker.request("POST", "/v1/webhooks/nobody/unlink").status == 404)
    }

    @Test func withoutALifecycleHandlerWebhooksAnswer501() async throws {
        let broker = try await Self.start(lifecycle: nil)
        let response = await broker.request("POST", "/v1/webhooks/echo-a/unlink?user_id=42")
        #expect(response.status == 501)
        #expect(response.errorCode == "NOT_IMPLEMENTED")
    }

    @Test(arguments: ["Bad", "1abc", "password", "oidc", "a_b", String(repeating: "a", count: 33)])
    func aProviderIDMustBeLowercaseAndNotReserved(_ id: String) async throws {
        await #expect(throws: ConfigError.self) {
            _ = try await InProcessBroker.start(
                catalog: ProviderCatalog([EchoProvider.self]),
                configure: { document in
                    guard case .object(var members) = document else { return document }
                    members["providers"] = .object([id: ["type": "echo"]])
                    return .object(members)
                })
        }
    }
}
