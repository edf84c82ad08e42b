public import BrokerModel

/// A provider that receives calls from its provider (server-to-server notifications, an unlink callback): it
/// verifies them in its folder and tells the broker what happened, as ``ProviderAccountEvent``s.
public protocol WebhookProviding: IdentityProvider {
    /// The routes it mounts under `/v1/webhooks/{id}`.
    var webhookRoutes: [WebhookRoute] { get }
}

/// One webhook route of a provider.
public struct WebhookRoute: Sendable {
    /// Handles a verified call: the request, its context, and where to report what the provider said.
    public typealias Handler = @Sendable (HTTPRequest, RequestContext, any ProviderLifecycle) async throws -> HTTPResponse

    /// The method.
    public var method: String
    /// The path below `/v1/webhooks/{id}`: empty for the provider's root, or `/`-prefixed (`/unlink`).
    public var path: String
    /// The handler.
    public var handler: Handler

    /// Creates a route.
    public init(method: String, path: String, handler: @escaping Handler) {
        self.method = method
        self.path = path
        self.handler = handler
    }
}

/// What a provider says happened to one of its users' link with the app.
public enum ProviderAccountEvent: Sendable, Equatable {
    /// The user stopped using the provider with the app (a revoked consent, an unlink).
    case consentRevoked(provider: ProviderID, subject: String)
    /// The provider account is gone.
    case accountDeleted(provider: ProviderID, subject: String)
    /// The provider stopped (or started again) forwarding mail to the user's email; `email` is the address it
    /// named, if any.
    case emailForwarding(provider: ProviderID, subject: String, enabled: Bool, email: String?)
}

/// Where providers report ``ProviderAccountEvent``s: the account layer applies the contract's lifecycle rules.
public protocol ProviderLifecycle: Sendable {
    /// Applies `event`; an unknown subject is no error (the call is answered as handled).
    func handle(_ event: ProviderAccountEvent, requestID: String) async throws
    /// Applies `event` at most once for `mark` (a notification's id, remembered in the store until the mark
    /// expires): a replay, here or on another instance, changes nothing.
    func handle(_ event: ProviderAccountEvent, requestID: String, once mark: SingleUseMark?) async throws
}

extension ProviderLifecycle {
    /// Applies `event` without replay protection (a handler that keeps no marks).
    public func handle(_ event: ProviderAccountEvent, requestID: String, once mark: SingleUseMark?) async throws {
        try await handle(event, requestID: requestID)
    }
}
