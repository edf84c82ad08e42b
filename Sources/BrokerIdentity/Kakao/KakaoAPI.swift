import BrokerModel
import Foundation

/// Kakao's REST API as the broker uses it: token info, then the user.
///
/// - `GET {apiBaseUrl}/v1/user/access_token_info` → `{"id", "expires_in", "app_id"}`
/// - `GET {apiBaseUrl}/v2/user/me` → `{"id", "kakao_account": {"email", "is_email_valid", "is_email_verified",
///   "profile": {"nickname", "profile_image_url"}}}`
///
/// Errors come as `{"code": -401, "msg": "..."}`: -401 (or any 401) is an invalid or expired token; -3 and -5 mean our app
/// is not set up for the call (misconfigured); anything else, a 5xx, no answer or a timeout means Kakao is
/// unavailable.
struct KakaoAPI: Sendable {
    let baseURL: String
    let client: any HTTPClient
    let metrics: Metrics

    /// Calls `path` with the user's token and returns the JSON object of a 200 answer.
    func get(_ path: String, accessToken: String, call: String) async throws -> [String: JSONValue] {
        let request = HTTPClientRequest(
            url: baseURL + path, headers: [("Authorization", "Bearer \(accessToken)"), ("Accept", "application/json")])
        let started = Date()
        let response: HTTPClientResponse
        do {
            response = try await client.send(request)
        } catch {
            metrics.observe(
                "broker_provider_call_seconds", labels: ["provider": "kakao", "call": call],
                seconds: Date().timeIntervalSince(started))
            throw ProviderError(.unavailable, "kakao \(call): \(error)")
        }
        metrics.observe(
            "broker_provider_call_seconds", labels: ["provider": "kakao", "call": call],
            seconds: Date().timeIntervalSince(started))
        let body = JSONValue.parse(response.body)?.objectValue
        if response.status == 200, let body { return body }
        throw KakaoAPI.error(status: response.status, code: body?["code"]?.intValue, call: call)
    }

    /// Records the duration of a call to Kakao.
    func observe(_ call: String, since started: Date) {
        metrics.observe(
            "broker_provider_call_seconds", labels: ["provider": "kakao", "call": call],
            seconds: Date().timeIntervalSince(started))
    }

    /// Maps a non-200 answer to the contract's outcome.
    static func error(status: Int, code: Int64?, call: String) -> ProviderError {
        if code == -401 || status == 401 {
            return ProviderError(.invalidToken, "kakao \(call): invalid token")
        }
        if code == -3 || code == -5 {
            return ProviderError(.misconfigured, "kakao \(call): app not permitted (\(code ?? 0))")
        }
        return ProviderError(.unavailable, "kakao \(call): status \(status) code \(code.map(String.init) ?? "-")")
    }
}
