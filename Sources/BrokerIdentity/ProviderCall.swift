import BrokerModel
import Foundation

/// One call of a provider's REST API on behalf of a user: timed into `broker_provider_call_seconds`, with any
/// transport failure (no answer, a refused connection, the 5 s timeout) turned into ``ProviderError`` unavailable.
struct ProviderCall: Sendable {
    /// The HTTP client.
    let client: any HTTPClient
    /// Metrics.
    let metrics: Metrics
    /// The provider's id, as the metric's `provider` label.
    let provider: String

    /// Sends `request` and returns the provider's answer, whatever its status; `call` labels the metric.
    func send(_ request: HTTPClientRequest, call: String) async throws -> HTTPClientResponse {
        let started = Date()
        defer {
            metrics.observe(
                "broker_provider_call_seconds", labels: ["provider": provider, "call": call],
                seconds: Date().timeIntervalSince(started))
        }
        do {
            return try await client.send(request)
        } catch {
            throw ProviderError(.unavailable, "\(provider) \(call): \(error)")
        }
    }

    /// Whether `token` can be an OAuth bearer token (RFC 6750's characters, at most 4096 bytes): anything else is
    /// refused before it reaches a header or a query string.
    static func isBearerToken(_ token: String) -> Bool {
        token.utf8.count <= 4096 && !token.isEmpty && token.utf8.allSatisfy(isTokenCharacter)
    }

    /// Whether `byte` is one of RFC 6750's token characters (`A-Z a-z 0-9 - . _ ~ + / =`).
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~+/=".utf8.contains(byte)
        }
    }

    /// `token` percent-encoded for a query string (`+`, `/` and `=` escaped; the rest of RFC 6750's characters
    /// are unreserved).
    static func queryEncoded(_ token: String) -> String {
        var out = ""
        for scalar in token.unicodeScalars {
            switch scalar {
            case "+": out += "%2B"
            case "/": out += "%2F"
            case "=": out += "%3D"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
