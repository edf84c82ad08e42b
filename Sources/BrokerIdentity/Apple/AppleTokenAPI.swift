import BrokerModel
import Foundation

/// Sign in with Apple's REST API as the broker uses it (contract section 10), under `apple.apiBaseUrl`:
///
/// - `POST /auth/token` (form `client_id`, `client_secret`, `code`, `grant_type=authorization_code`) →
///   `{"access_token", "refresh_token", "id_token", ...}`; `{"error": "invalid_grant"}` is a refused code;
/// - `POST /auth/revoke` (form `client_id`, `client_secret`, `token`, `token_type_hint=refresh_token`) → 200.
///
/// A 5xx, a 429, no answer or a timeout means Apple is unavailable; `invalid_client` means our client secret is
/// wrong (misconfigured). Messages name Apple's error code, never a token, code or secret.
struct AppleTokenAPI: Sendable {
    let baseURL: String
    let client: any HTTPClient
    let secret: AppleClientSecret
    let metrics: Metrics

    /// What the code exchange returns.
    struct Exchange: Sendable {
        var refreshToken: String
        var idToken: String
    }

    /// Exchanges an authorization code.
    func exchange(code: String) async throws -> Exchange {
        let response = try await post(
            "/auth/token", call: "token",
            form: [
                ("client_id", secret.clientID), ("client_secret", try secret.current()), ("code", code),
                ("grant_type", "authorization_code"),
            ])
        let body = JSONValue.parse(response.body)?.objectValue
        switch response.status {
        case 200:
            guard let refresh = body?["refresh_token"]?.stringValue, !refresh.isEmpty, refresh.utf8.count <= 4096,
                let idToken = body?["id_token"]?.stringValue
            else { throw ProviderError(.unavailable, "apple token: answer without refresh_token or id_token") }
            return Exchange(refreshToken: refresh, idToken: idToken)
        default:
            throw Self.error(status: response.status, code: body?["error"]?.stringValue, call: "token")
        }
    }

    /// Revokes a refresh token.
    func revoke(refreshToken: String) async throws {
        let response = try await post(
            "/auth/revoke", call: "revoke",
            form: [
                ("client_id", secret.clientID), ("client_secret", try secret.current()), ("token", refreshToken),
                ("token_type_hint", "refresh_token"),
            ])
        guard response.status == 200 else {
            let code = JSONValue.parse(response.body)?["error"]?.stringValue
            throw Self.error(status: response.status, code: code, call: "revoke")
        }
    }

    private func post(_ path: String, call: String, form: [(String, String)]) async throws -> HTTPClientResponse {
        let body = form.map { Self.formEscaped($0.0) + "=" + Self.formEscaped($0.1) }.joined(separator: "&")
        let request = HTTPClientRequest(
            method: "POST", url: baseURL + path,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array(body.utf8))
        let started = Date()
        defer {
            metrics.observe(
                "broker_provider_call_seconds", labels: ["provider": "apple", "call": call],
                seconds: Date().timeIntervalSince(started))
        }
        do {
            return try await client.send(request)
        } catch {
            throw ProviderError(.unavailable, "apple \(call): no answer (\(error))")
        }
    }

    /// Maps a refusal: `invalid_grant` (a bad, used or expired code or token) is an invalid token,
    /// `invalid_client` a misconfigured client secret, a 5xx or 429 an unavailable Apple.
    static func error(status: Int, code: String?, call: String) -> ProviderError {
        let detail = "apple \(call): status \(status) error \(code.map { String($0.prefix(64)) } ?? "-")"
        if status >= 500 || status == 429 { return ProviderError(.unavailable, detail) }
        switch code {
        case "invalid_grant"?: return ProviderError(.invalidToken, detail)
        case "invalid_client"?, "unauthorized_client"?: return ProviderError(.misconfigured, detail)
        default: return status >= 400 && status < 500 ? ProviderError(.invalidToken, detail) : ProviderError(.unavailable, detail)
        }
    }

    /// `application/x-www-form-urlencoded` escaping: unreserved characters stay, everything else is `%XX`.
    static func formEscaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
