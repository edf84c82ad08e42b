import BrokerModel
import Foundation

/// Sign in with Apple's code exchange (contract section 10): an authorization code becomes Apple's refresh
/// token, kept sealed with the broker's key so that deleting the account can revoke it (App Store Review
/// Guideline 5.1.1(v), TN3194).
///
/// The exchange's ID token is checked for its signature (Apple's JWKS), `iss` and `aud` (the entry's audiences or
/// the client id; no nonce, no single-use mark), and its `sub` must be the identity token's: a code of another
/// user is refused.
struct AppleCodeExchange: Sendable {
    let provider: ProviderID
    let api: AppleTokenAPI
    let verifier: IDTokenVerifier
    let cipher: OutboxCipher

    /// The associated data a refresh token of `subject` is sealed with.
    func sealingContext(subject: String) -> String { "provider-token:\(provider.rawValue):\(subject)" }

    /// Exchanges `code` for the refresh token of `subject`, sealed (``Identity/providerToken``).
    func refreshToken(code: String, subject: String) async throws -> String {
        guard (1...1024).contains(code.utf8.count), code.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ProviderError(.invalidToken, "apple: not an authorization code")
        }
        let answer = try await api.exchange(code: code)
        let claims: [String: JSONValue]
        do {
            claims = try await verifier.verify(answer.idToken, rawNonce: nil)
        } catch let error as TokenError {
            throw ProviderError(.invalidToken, "apple token: the answer's id_token is not valid (\(error.code.rawValue))")
        }
        guard claims["sub"]?.stringValue == subject else {
            throw ProviderError(.invalidToken, "apple token: the code belongs to another user")
        }
        return try cipher.seal(answer.refreshToken, context: sealingContext(subject: subject))
    }
}
