import BrokerModel
import Foundation

/// LINE Login's REST API as the broker uses it (LINE Login v2.1):
///
/// - `GET {apiBaseUrl}/oauth2/v2.1/verify?access_token=…` → `{"scope", "client_id", "expires_in"}`: the channel
///   the token was issued to and its remaining seconds; an invalid or expired token is a 400
///   (`{"error": "invalid_request", "error_description": "…"}`) or a 401.
/// - `GET {apiBaseUrl}/v2/profile` with `Authorization: Bearer` → `{"userId", "displayName", "pictureUrl",
///   "statusMessage"}`; 401 for an invalid token.
///
/// 403 means our channel may not make the call (misconfigured); any other answer, a 5xx, no answer or a timeout
/// means LINE is unavailable.
struct LineAPI: Sendable {
    let baseURL: String
    let call: ProviderCall

    /// What LINE says of an access token.
    struct TokenInfo: Sendable {
        var clientID: String
        var expiresIn: Int64
    }

    /// What LINE says of the token's user.
    struct Profile: Sendable {
        var userID: String
        var displayName: String?
        var pictureURL: String?
    }

    /// Verifies `token` with LINE.
    func verify(_ token: String) async throws -> TokenInfo {
        let response = try await call.send(
            HTTPClientRequest(
                url: baseURL + "/oauth2/v2.1/verify?access_token=" + ProviderCall.queryEncoded(token),
                headers: [("Accept", "application/json")]),
            call: "verify")
        let body = try LineAPI.object(response, call: "verify")
        guard let clientID = body["client_id"]?.stringValue else {
            throw ProviderError(.unavailable, "line verify: no client_id")
        }
        guard let expiresIn = body["expires_in"]?.intValue else {
            throw ProviderError(.unavailable, "line verify: no expires_in")
        }
        return TokenInfo(clientID: clientID, expiresIn: expiresIn)
    }

    /// Reads the profile of `token`'s user.
    func profile(_ token: String) async throws -> Profile {
        let response = try await call.send(
            HTTPClientRequest(
                url: baseURL + "/v2/profile", headers: [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]),
            call: "profile")
        let body = try LineAPI.object(response, call: "profile")
        guard let userID = body["userId"]?.stringValue, LineAPI.isUserID(userID) else {
            throw ProviderError(.unavailable, "line profile: no userId")
        }
        return Profile(
            userID: userID, displayName: body["displayName"]?.stringValue, pictureURL: body["pictureUrl"]?.stringValue)
    }

    /// The JSON object of a 200 answer, or the contract's error for any other.
    static func object(_ response: HTTPClientResponse, call: String) throws -> [String: JSONValue] {
        switch response.status {
        case 200:
            guard let body = JSONValue.parse(response.body)?.objectValue else {
                throw ProviderError(.unavailable, "line \(call): not a JSON object")
            }
            return body
        case 400, 401: throw ProviderError(.invalidToken, "line \(call): invalid token (\(response.status))")
        case 403: throw ProviderError(.misconfigured, "line \(call): the channel may not call this API")
        default: throw ProviderError(.unavailable, "line \(call): status \(response.status)")
        }
    }

    /// Whether `text` can be a LINE user id (LINE issues `U` and 32 hex digits): 1 to 128 printable ASCII
    /// characters, so a format change on LINE's side does not lock users out.
    static func isUserID(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
