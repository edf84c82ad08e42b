import COpenSSL

/// An Ed25519 private key: what a test authenticator signs with (the broker only verifies Ed25519).
///
/// `@unchecked Sendable`: immutable after `init`; each signature makes its own digest context.
public final class Ed25519PrivateKey: @unchecked Sendable {
    let key: EVPKey

    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    /// A new random Ed25519 key.
    public static func generate() throws -> Ed25519PrivateKey {
        try Ed25519PrivateKey(key: EVPKey.generate(algorithm: "ED25519") { _ in true })
    }

    private init(key: EVPKey) throws {
        self.key = key
        var raw = [UInt8](repeating: 0, count: Ed25519PublicKey.keyByteCount)
        var length = raw.count
        try openSSLCheck(
            raw.withUnsafeMutableBufferPointer { EVP_PKEY_get_raw_public_key(key.pointer, $0.baseAddress, &length) },
            .invalidKey, "EVP_PKEY_get_raw_public_key (Ed25519)")
        publicKey = try Ed25519PublicKey(bytes: Array(raw.prefix(length)))
    }

    /// The 64-byte Ed25519 signature of `message`.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        try key.signOneShot(message, maximumLength: Ed25519PublicKey.signatureByteCount)
    }
}
