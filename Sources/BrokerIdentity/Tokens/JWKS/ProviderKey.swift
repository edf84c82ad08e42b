public import BrokerCrypto

/// A provider's public signing key from its JWKS: RSA (RS256) or P-256 (ES256). The key fixes the algorithm,
/// so a token naming another algorithm never reaches it.
public enum ProviderKey: Sendable {
    /// An RSA key of at least ``JWKSet/minimumRSABits`` bits.
    case rsa(RSAPublicKey)
    /// A P-256 key.
    case p256(P256PublicKey)

    /// The one algorithm this key verifies.
    public var algorithm: JWSAlgorithm {
        switch self {
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// Whether `signature` (PKCS#1 v1.5 for RSA, JOSE `r || s` for P-256) signs `message` under this key.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        switch self {
        case .rsa(let key): key.verifySHA256(signature: signature, message: message)
        case .p256(let key): key.verifySHA256(signature: signature, message: message)
        }
    }
}
