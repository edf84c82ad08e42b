import BrokerModel
import Foundation

/// Naver Login's profile API as the broker uses it:
///
/// `GET {apiBaseUrl}/v1/nid/me` with `Authorization: Bearer` →
/// `{"resultcode": "00", "message": "success", "response": {"id", "email", "nickname", "name", "profile_image", …}}`.
///
/// Naver's failures: HTTP 401 with `resultcode` `024` (authentication failed: an invalid, expired or revoked
/// token) or `028` (no authentication header) is an invalid token; 403 (the app may not call the API, or not over
/// https) means our app is misconfigured; anything else (404, 500 `resultcode`s, a 5xx, no answer, a timeout)
/// means Naver is unavailable.
struct NaverAPI: Sendable {
    let baseURL: String
    let call: ProviderCall

    /// The user of `token`, as `response` of a `resultcode` `"00"` answer.
    func me(_ token: String) async throws -> [String: JSONValue] {
        let response = try await call.send(
            HTTPClientRequest(
                url: baseURL + "/v1/nid/me", headers: [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]),
            call: "nid_me")
        let body = JSONValue.parse(response.body)?.objectValue
        let resultCode = body?["resultcode"]?.stringValue
        if response.status == 200, resultCode == "00", let user = body?["response"]?.objectValue { return user }
        throw NaverAPI.error(status: response.status, resultCode: resultCode)
    }

    /// Maps an answer that is not a success to the contract's outcome.
    static func error(status: Int, resultCode: String?) -> ProviderError {
        switch (status, resultCode) {
        case (401, _), (_, "024"), (_, "028"):
            return ProviderError(.invalidToken, "naver nid/me: invalid token (\(status) \(resultCode ?? "-"))")
        case (403, _), (_, "403"):
            return ProviderError(.misconfigured, "naver nid/me: the app may not call the profile API")
        default:
            return ProviderError(.unavailable, "naver nid/me: status \(status) resultcode \(resultCode ?? "-")")
        }
    }
}
