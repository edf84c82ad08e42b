import COpenSSL

/// An Ed25519 public key (RFC 8032), for verifying EdDSA signatures such as a passkey's (COSE -8 and -19).
///
/// `@unchecked Sendable`: the key is immutable after `init`, and each verification makes its own OpenSSL
/// digest context (Ed25519 hashes inside the signature scheme, so there is no template to copy).
public final class Ed25519PublicKey: @unchecked Sendable {
    /// The size of a public key and of half a signature, in bytes.
    public static let keyByteCount = 32
    /// The size of a signature, in bytes.
    public static let signatureByteCount = 64

    let key: EVPKey

    /// The 32 raw key bytes (RFC 8032's encoding of the point).
    public let bytes: [UInt8]

    /// The key whose RFC 8032 encoding is `bytes`.
    ///
    /// - Throws: `CryptoError.invalidKey` when `bytes` is not 32 bytes or OpenSSL refuses it.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.keyByteCount else {
            throw CryptoError(code: .invalidKey, message: "an Ed25519 public key must be 32 bytes")
        }
        let made = bytes.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, $0.baseAddress, $0.count)
        }
        guard let made else { throw CryptoError.openSSL(.invalidKey, "EVP_PKEY_new_raw_public_key_ex (Ed25519)") }
        key = EVPKey(owning: made)
        self.bytes = bytes
    }

    /// Whether `signature` (64 bytes) is a valid Ed25519 signature of `message` under this key. Any failure is
    /// `false`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == Self.signatureByteCount else { return false }
        return key.verifyOneShot(signature: signature, message: message)
    }
}
