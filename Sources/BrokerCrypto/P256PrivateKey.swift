import COpenSSL

/// A NIST P-256 private key, for ES256 signatures (ECDSA with SHA-256), as used for Apple's client-secret
/// JWT and the broker's own tokens.
///
/// `@unchecked Sendable`: all stored properties are immutable after `init`, and the underlying OpenSSL 3
/// `EVP_PKEY` is safe to use from many threads at once for signing (see `EVPKey`).
public final class P256PrivateKey: @unchecked Sendable {
    let key: EVPKey

    /// The matching public key, built once from the private key's public point.
    public let publicKey: P256PublicKey

    /// Wraps `key`, which must be an EC private key on P-256.
    init(key: EVPKey) throws {
        guard key.isA("EC"), key.stringParameter("group") == "prime256v1" else {
            throw CryptoError(code: .invalidKey, message: "the key is not a P-256 EC key")
        }
        self.key = key
        let size = P256PublicKey.coordinateByteCount
        let x = try key.integerParameter("qx")
        let y = try key.integerParameter("qy")
        guard x.count <= size, y.count <= size else {
            throw CryptoError(code: .invalidKey, message: "the P-256 public point is malformed")
        }
        publicKey = try P256PublicKey(
            x: [UInt8](repeating: 0, count: size - x.count) + x,
            y: [UInt8](repeating: 0, count: size - y.count) + y)
    }

    /// A new random P-256 key.
    public static func generate() throws -> P256PrivateKey {
        let key = try EVPKey.generate(algorithm: "EC") { context in
            EVP_PKEY_CTX_set_group_name(context, "prime256v1") == 1
        }
        return try P256PrivateKey(key: key)
    }

    /// The P-256 private key in the PEM document `pem`: PKCS#8 ("BEGIN PRIVATE KEY", as in Apple's
    /// `.p8` files) or SEC 1 ("BEGIN EC PRIVATE KEY"). Literal `\n` sequences are accepted as line breaks.
    ///
    /// - Throws: `CryptoError.invalidKey` when there is no readable unencrypted private key, or it is
    ///   not an EC key on P-256 (other curves, RSA and Ed25519 keys are refused).
    public convenience init(pem: String) throws {
        try self.init(key: EVPKey.privateKey(pem: pem))
    }

    /// The key as an unencrypted PKCS#8 PEM document ("BEGIN PRIVATE KEY"). Contains the secret key.
    public func pemPKCS8() throws -> String {
        try key.pemPKCS8()
    }

    /// The ES256 signature of `message` in JOSE form: 64 bytes, `r || s`, each 32 bytes big-endian and
    /// left-padded (not DER). ECDSA is randomised, so two signatures of one message differ.
    public func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        let der = try key.signSHA256(message)
        return try ECDSASignature.raw(fromDER: der, coordinateSize: P256PublicKey.coordinateByteCount)
    }

    /// The ECDSA signature with SHA-256 of `message` in ASN.1 DER, as a WebAuthn authenticator makes it.
    public func signSHA256DER(_ message: [UInt8]) throws -> [UInt8] {
        try key.signSHA256(message)
    }
}
