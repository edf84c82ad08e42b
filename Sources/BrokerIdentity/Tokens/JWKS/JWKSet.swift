public import BrokerCrypto
public import BrokerModel

/// The usable keys of a JWKS document, by `kid`: RSA signing keys of at least 2048 bits (RS256) and P-256 keys
/// (ES256). Keys of other types and curves (P-384, Ed25519, symmetric `oct` keys) are skipped, not errors.
public struct JWKSet: Sendable {
    /// The smallest modulus accepted; smaller keys are ignored.
    public static let minimumRSABits = 2048

    /// The RSA keys by `kid`.
    public var keys: [KeyID: RSAPublicKey]
    /// Every usable key by `kid`, RSA and P-256; of two keys with one `kid`, the first is kept.
    public var verificationKeys: [KeyID: ProviderKey]

    /// Parses a JWKS document, skipping keys that are not RSA or P-256, not for signatures, for another
    /// algorithm, weak, or broken. Throws when the document itself is not a JWKS.
    public init(parsing bytes: [UInt8]) throws {
        guard let entries = JSONValue.parse(bytes)?["keys"]?.arrayValue else {
            throw TokenError(.malformed, "not a JWKS document")
        }
        var keys: [KeyID: RSAPublicKey] = [:]
        var all: [KeyID: ProviderKey] = [:]
        for entry in entries {
            guard let kid = entry["kid"]?.stringValue.map(KeyID.init(rawValue:)), all[kid] == nil,
                entry["use"].map({ $0.stringValue == "sig" }) ?? true,
                let key = JWKSet.key(entry)
            else { continue }
            all[kid] = key
            if case .rsa(let rsa) = key { keys[kid] = rsa }
        }
        self.keys = keys
        self.verificationKeys = all
    }

    /// The key a JWK describes, nil when it is not a usable RSA or P-256 signing key.
    static func key(_ entry: JSONValue) -> ProviderKey? {
        switch entry["kty"]?.stringValue {
        case "RSA":
            guard entry["alg"].map({ $0.stringValue == JWSAlgorithm.rs256.rawValue }) ?? true,
                let modulus = entry["n"]?.stringValue.flatMap(Base64URL.decode),
                let exponent = entry["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? RSAPublicKey(modulus: modulus, exponent: exponent),
                key.bitCount >= JWKSet.minimumRSABits
            else { return nil }
            return .rsa(key)
        case "EC":
            guard entry["crv"]?.stringValue == "P-256",
                entry["alg"].map({ $0.stringValue == JWSAlgorithm.es256.rawValue }) ?? true,
                let x = entry["x"]?.stringValue.flatMap(Base64URL.decode),
                let y = entry["y"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? P256PublicKey(x: x, y: y)
            else { return nil }
            return .p256(key)
        default:
            return nil
        }
    }
}
