import BrokerCrypto
import BrokerModel
import Foundation

/// Kakao's unlink callback (contract section 10): `POST /v1/webhooks/kakao/unlink`, called by Kakao when a user
/// disconnects the app (`referrer_type` says how: from the app list, by deleting the Kakao account, by an admin).
///
/// The call carries `Authorization: KakaoAK <primary admin key>` (compared with `adminKeyFile`'s key in constant
/// time; without `adminKeyFile` every call is refused) and `app_id`, `user_id`, `referrer_type` in the form body
/// or the query string (a field given in both with different values is 400 `INVALID_REQUEST`). A wrong key or app id
/// is 401 `INVALID_WEBHOOK` and changes nothing; otherwise the user's account is handed to the lifecycle as the
/// user leaving Kakao, in one transaction, and the call answered 200, also for a user no account is linked to.
extension KakaoProvider: WebhookProviding {
    /// `POST /unlink`.
    public var webhookRoutes: [WebhookRoute] {
        [
            WebhookRoute(method: "POST", path: "/unlink") { [self] request, context, lifecycle in
                try await unlinkCallback(request, context: context, lifecycle: lifecycle)
            }
        ]
    }

    /// The names of the callback's fields.
    static let unlinkFields = ["app_id", "user_id", "referrer_type"]

    /// Verifies and applies one unlink callback.
    func unlinkCallback(_ request: HTTPRequest, context: RequestContext, lifecycle: any ProviderLifecycle) async throws
        -> HTTPResponse
    {
        let fields = try Self.callbackFields(request)
        guard let adminKey, let header = request.headers["authorization"], header.utf8.count <= 512,
            header.prefix(8).lowercased() == "kakaoak ",
            constantTimeEquals(Digest.sha256(String(header.dropFirst(8)).trimmingCharacters(in: .whitespaces)), Digest.sha256(adminKey))
        else { throw WebhookError(.invalidWebhook, "kakao unlink: the admin key does not match") }
        guard let appID = fields["app_id"], constantTimeEquals(Digest.sha256(appID), Digest.sha256(self.appID)) else {
            throw WebhookError(.invalidWebhook, "kakao unlink: app_id is not this app's")
        }
        guard let user = fields["user_id"], let number = Int64(user), number > 0 else {
            throw ProviderError(.invalidRequest, "user_id must be a Kakao user id.")
        }
        try await lifecycle.handle(.consentRevoked(provider: id, subject: String(number)), requestID: context.requestID)
        return .json(200, [:])
    }

    /// `app_id`, `user_id` and `referrer_type` from the form body and the query string; 400 when one is given
    /// in both with different values, or is longer than 64 characters.
    static func callbackFields(_ request: HTTPRequest) throws -> [String: String] {
        let form = request.formFields
        var fields: [String: String] = [:]
        for name in unlinkFields {
            let inForm = form[name]
            let inQuery = request.query[name]
            if let inForm, let inQuery, inForm != inQuery {
                throw ProviderError(.invalidRequest, "\(name) differs between the body and the query string.")
            }
            guard let value = inForm ?? inQuery else { continue }
            guard value.utf8.count <= 64 else { throw ProviderError(.invalidRequest, "\(name) is too long.") }
            fields[name] = value
        }
        return fields
    }
}
