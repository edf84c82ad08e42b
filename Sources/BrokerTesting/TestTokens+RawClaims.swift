import BrokerCore
public import BrokerCrypto
import BrokerModel

extension TestTokens {
    /// An RS256 JWT whose payload is `payload` exactly as written: for claims no ``JSONValue`` spells, such as a
    /// number that overflows to infinity (`1e400`) or `-0`.
    public static func sign(rawClaims payload: String, key: RSAPrivateKey, kid: String) throws -> String {
        let header = JSONValue.object(["alg": "RS256", "typ": "JWT", "kid": .string(kid)]).serialized()
        let input = Base64URL.encode(header) + "." + Base64URL.encode(Array(payload.utf8))
        return input + "." + Base64URL.encode(try key.signSHA256(Array(input.utf8)))
    }
}

extension StubProviders {
    /// A token of `provider`'s current key whose payload is `payload` exactly as written (see
    /// ``TestTokens/sign(rawClaims:key:kid:)``).
    public func idToken(_ provider: String, rawClaims payload: String) throws -> String {
        guard let keys = keys(provider) else { throw ProviderError(.invalidRequest, "unknown stub provider") }
        let current = keys.current
        return try TestTokens.sign(rawClaims: payload, key: current.key, kid: current.id)
    }
}
