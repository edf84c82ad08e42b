import COpenSSL

/// An RSA private key, for RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256), as used for Firebase
/// custom tokens and the broker's own JWTs.
///
/// `@unchecked Sendable`: all stored properties are immutable after `init`, and the underlying OpenSSL 3
/// `EVP_PKEY` is safe to use from many threads at once for signing (see `EVPKey`).
public final class RSAPrivateKey: @unchecked Sendable {
    let key: EVPKey

    /// The matching public key, built once from the private key's `n` and `e`.
    public let publicKey: RSAPublicKey

    /// Wraps `key`, which must be an RSA private key within `RSAPublicKey`'s size limits.
    init(key: EVPKey) throws {
        guard key.isA("RSA") else {
            throw CryptoError(code: .invalidKey, message: "the key is not an RSA key")
        }
        self.key = key
        self.publicKey = try RSAPublicKey(
            modulus: key.integerParameter("n"), exponent: key.integerParameter("e"))
    }

    /// A new random key of `bits` bits with exponent 65537.
    ///
    /// - Throws: `CryptoError.invalidKey` when `bits` is outside
    ///   `RSAPublicKey.minimumBitCount...RSAPublicKey.maximumBitCount` or generation fails.
    public static func generate(bits: Int = 2048) throws -> RSAPrivateKey {
        guard (RSAPublicKey.minimumBitCount...RSAPublicKey.maximumBitCount).contains(bits) else {
            throw CryptoError(code: .invalidKey, message: "unsupported RSA key size \(bits)")
        }
        let key = try EVPKey.generate(algorithm: "RSA") { context in
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1
        }
        return try RSAPrivateKey(key: key)
    }

    /// The RSA private key in the PEM document `pem`: PKCS#8 ("BEGIN PRIVATE KEY", as in a Firebase
    /// service account's `private_key`) or PKCS#1 ("BEGIN RSA PRIVATE KEY"). Literal `\n` sequences are
    /// accepted as line breaks.
    ///
    /// - Throws: `CryptoError.invalidKey` when there is no readable unencrypted private key, or it is
    ///   not RSA (EC, Ed25519 and RSA-PSS-only keys are refused).
    public convenience init(pem: String) throws {
        try self.init(key: EVPKey.privateKey(pem: pem))
    }

    /// The key as an unencrypted PKCS#8 PEM document ("BEGIN PRIVATE KEY"). Contains the secret key.
    public func pemPKCS8() throws -> String {
        try key.pemPKCS8()
    }

    /// The RS256 signature (RSASSA-PKCS1-v1_5 with SHA-256) of `message`: as many bytes as the modulus.
    public func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        try key.signSHA256(message)
    }
}
