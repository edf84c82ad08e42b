import BrokerIdentity
public import BrokerModel
import BrokerStorage
import Foundation

/// The hooks phase over HTTP (contract section 16): `hooks.beforeCreate` when the sign-in creates its account, then
/// `hooks.beforeSignIn`, each a signed POST through the broker's ``HTTPClient`` (libcurl's multi interface: a
/// waiting hook holds no thread), made before the sign-in's transaction. An answer of `{"deny": {"message"}}` is
/// 403 `BLOCKED_BY_HOOK`; `customClaims`, `displayName`, `photoUrl` and `disabled` amend the sign-in; a timeout,
/// another status or a bad body follows the hook's `onFailure`.
public struct WebhookSignInHooks: SignInHooks {
    /// Which hook is called.
    public enum Kind: String, Sendable {
        /// Before a new account is stored.
        case beforeCreate
        /// Before a sign-in mints its session.
        case beforeSignIn
    }

    let settings: HookSettings
    let client: any HTTPClient
    let clock: any Clock
    let logger: Logger
    let metrics: Metrics
    /// Whether a `photoUrl` answer may be `http://` (as `allowInsecureProviderUrls` lets a profile's).
    let allowInsecurePhotoURLs: Bool

    /// Creates the phase for `settings`, calling through `client`.
    public init(
        settings: HookSettings, client: any HTTPClient, clock: any Clock, logger: Logger, metrics: Metrics,
        allowInsecurePhotoURLs: Bool = false
    ) {
        self.settings = settings
        self.client = client
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        self.allowInsecurePhotoURLs = allowInsecurePhotoURLs
    }

    /// `beforeCreate` (when the decision creates), then `beforeSignIn`, each told of the account as the earlier
    /// answer left it; the answers merged, the later over the earlier.
    public func before(
        _ decision: SignInDecision, method: String, context: SignInContext
    ) async throws
        -> SignInAmendment
    {
        var amendment = SignInAmendment()
        if decision.creates, let hook = settings.beforeCreate {
            amendment = amendment.merging(try await call(hook, .beforeCreate, decision, amendment, context))
        }
        if let hook = settings.beforeSignIn {
            amendment = amendment.merging(try await call(hook, .beforeSignIn, decision, amendment, context))
        }
        return amendment
    }

    /// One hook's answer; a deny throws ``SignInError/Code/blockedByHook``, a failure follows `onFailure`.
    func call(
        _ hook: HookEndpoint, _ kind: Kind, _ decision: SignInDecision, _ earlier: SignInAmendment,
        _ context: SignInContext
    ) async throws -> SignInAmendment {
        let now = clock.now
        let body = Self.payload(kind, decision, earlier, at: now).serialized()
        let request = HTTPClientRequest(
            method: "POST", url: hook.url,
            headers: WebhookSigner(secret: hook.secret).headers(
                id: WebhookSigner.newMessageID(), date: now, body: body),
            body: body, timeout: hook.timeout)
        let failure: String
        do {
            let response = try await client.send(request)
            if response.status == 200 {
                do {
                    if let answer = try answer(response.body) {
                        count(kind, "answered")
                        return answer
                    }
                } catch {
                    count(kind, "denied")
                    throw error
                }
            }
            failure = response.status == 200 ? "a body that is no answer" : "status \(response.status)"
        } catch let error as HTTPClientError {
            failure = error.code == .timeout ? "no answer within \(Int(hook.timeout * 1000)) ms" : error.detail
        }
        count(kind, "failed")
        logger.warning(
            "the \(kind.rawValue) hook failed: \(failure); onFailure is \(hook.onFailure.rawValue)",
            metadata: ["requestId": .string(context.requestID), "provider": .string(decision.credential.provider)])
        switch hook.onFailure {
        case .deny: throw SignInError(.hookUnavailable, "\(kind.rawValue): \(failure)")
        case .allow: return SignInAmendment()
        }
    }

    private func count(_ kind: Kind, _ outcome: String) {
        metrics.increment("broker_hook_calls_total", labels: ["hook": kind.rawValue, "outcome": outcome])
    }

    /// The answer in `body`: nil for a body that is no answer; a deny throws.
    func answer(_ body: [UInt8]) throws -> SignInAmendment? {
        guard let members = JSONValue.parse(body)?.objectValue else { return nil }
        if let deny = members["deny"], deny != .null {
            let message = deny["message"]?.stringValue ?? "The sign-in was refused."
            throw SignInError(.blockedByHook, String(message.prefix(500)))
        }
        var amendment = SignInAmendment()
        if let claims = members["customClaims"], claims != .null {
            guard let text = try? CustomClaims.validated(claims) else { return nil }
            amendment.customClaims = text
        }
        if let name = members["displayName"], name != .null {
            guard let text = name.stringValue, text.count <= 256 else { return nil }
            amendment.displayName = text
        }
        if let photo = members["photoUrl"], photo != .null {
            guard let text = photo.stringValue, PhotoURL.isAcceptable(text, allowInsecure: allowInsecurePhotoURLs)
            else { return nil }
            amendment.photoURL = text
        }
        if let disabled = members["disabled"], disabled != .null {
            guard let flag = disabled.boolValue else { return nil }
            amendment.disabled = flag
        }
        return amendment
    }

    /// The body of a call: `{"type", "time", "user", "credential", "client"}`; `user` is the account as the
    /// sign-in would leave it: for a new account, the account it would store (``SignInDecision/newAccount``), its
    /// uid null, or what the credential tells of it when the method cannot say.
    static func payload(
        _ kind: Kind, _ decision: SignInDecision, _ earlier: SignInAmendment, at now: Date
    ) -> JSONValue {
        let credential = decision.credential
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var user: JSONValue
        if var account = decision.account ?? decision.newAccount {
            earlier.apply(to: &account)
            user = account.json
            if decision.account == nil, case .object(var members) = user {
                members["uid"] = .null
                user = .object(members)
            }
        } else {
            user = .object([
                "uid": .null, "email": optional(credential.email),
                "emailVerified": .bool(credential.emailVerified), "displayName": optional(earlier.displayName),
                "photoUrl": optional(earlier.photoURL), "disabled": .bool(earlier.disabled ?? false),
                "isAnonymous": .bool(credential.provider == ProviderID.anonymous.rawValue), "identities": .array([]),
            ])
        }
        if case .object(var members) = user {
            // The developer's claims, as the tokens carry them: a name the broker sets itself, stored before it was
            // reserved, is left out, so a hook that answers the claims it was sent is not refused for it.
            let claims = (earlier.customClaims ?? decision.account?.customClaims).flatMap {
                JSONValue.parse(Array($0.utf8))?.objectValue.map { JSONValue.object(CustomClaims.developerClaims($0)) }
            }
            members["customClaims"] = claims ?? .null
            user = .object(members)
        }
        let origin = RequestOrigin.current
        return .object([
            "type": .string(kind.rawValue), "time": .string(now.rfc3339), "user": user,
            "credential": .object([
                "provider": .string(credential.provider), "subject": optional(credential.subject),
                "email": optional(credential.email), "emailVerified": .bool(credential.emailVerified),
            ]),
            "client": .object(["ip": optional(origin?.clientAddress), "userAgent": optional(origin?.userAgent)]),
        ])
    }
}
