import BrokerModel
import Foundation

/// Delivers `kakao.unlink` jobs: `POST {apiBaseUrl}/v1/user/unlink` with `Authorization: KakaoAK <admin key>` and
/// the form `target_id_type=user_id&target_id=<id>` (contract section 10).
///
/// Kakao's answer decides: 200 is done, and so is -101 (the user is no longer linked to the app: what the call
/// was for); any other 4xx but 429 (a wrong admin key, -401; a bad argument, -2) is a permanent refusal that ends the job, logged and audited by the worker;
/// a 429, a 5xx, no answer or a timeout is retried with backoff. Messages name the status and Kakao's code, never
/// the key.
struct KakaoUnlinkHandler: OutboxHandling {
    let api: KakaoAPI
    let adminKey: String

    func deliver(_ job: OutboxJob, payload: [UInt8]) async throws {
        guard let body = JSONValue.parse(payload), let target = body["targetId"]?.stringValue,
            let userID = Int64(target), userID > 0
        else { throw OutboxDeliveryError(.permanent, "kakao.unlink: malformed payload") }
        let request = HTTPClientRequest(
            method: "POST", url: api.baseURL + "/v1/user/unlink",
            headers: [
                ("Authorization", "KakaoAK " + adminKey), ("Content-Type", "application/x-www-form-urlencoded"),
                ("Accept", "application/json"),
            ],
            body: Array("target_id_type=user_id&target_id=\(userID)".utf8))
        let started = Date()
        let response: HTTPClientResponse
        do {
            response = try await api.client.send(request)
        } catch {
            api.observe("unlink", since: started)
            throw OutboxDeliveryError(.transient, "kakao unlink: no answer (\(error))")
        }
        api.observe("unlink", since: started)
        let code = JSONValue.parse(response.body)?["code"]?.intValue
        let detail = "kakao unlink: status \(response.status) code \(code.map(String.init) ?? "-")"
        switch response.status {
        case 200: return
        case 400 where code == -101: return
        case 429, 500...: throw OutboxDeliveryError(.transient, detail)
        case 400..<500: throw OutboxDeliveryError(.permanent, detail)
        default: throw OutboxDeliveryError(.transient, detail)
        }
    }
}
