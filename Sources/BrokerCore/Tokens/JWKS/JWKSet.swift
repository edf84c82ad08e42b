import BrokerCrypto

/// The usable keys of a JWKS document: RSA signing keys of at least 2048 bits, by `kid`.
public struct JWKSet: Sendable {
    /// The smallest modulus accepted; smaller keys are ignored.
    public static let minimumRSABits = 2048

    /// The keys by `kid`.
    public var keys: [String: RSAPublicKey]

    /// Parses a JWKS document, skipping keys that are not RSA, not for signatures, not RS256, weak, or broken.
    /// Throws when the document itself is not a JWKS.
    public init(parsing bytes: [UInt8]) throws {
        guard let entries = JSONValue.parse(bytes)?["keys"]?.arrayValue else {
            throw TokenError(.malformed, "not a JWKS document")
        }
        var keys: [String: RSAPublicKey] = [:]
        for entry in entries {
            guard entry["kty"]?.stringValue == "RSA", let kid = entry["kid"]?.stringValue,
                entry["use"].map({ $0.stringValue == "sig" }) ?? true,
                entry["alg"].map({ $0.stringValue == "RS256" }) ?? true,
                let modulus = entry["n"]?.stringValue.flatMap(Base64URL.decode),
                let exponent = entry["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? RSAPublicKey(modulus: modulus, exponent: exponent),
                key.bitCount >= JWKSet.minimumRSABits
            else { continue }
            keys[kid] = key
        }
        self.keys = keys
    }
}
