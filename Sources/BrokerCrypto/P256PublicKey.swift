import COpenSSL

/// A NIST P-256 (prime256v1, secp256r1) public key, for verifying ES256 signatures (ECDSA with SHA-256).
///
/// `@unchecked Sendable`: all stored properties are immutable after `init`, and the underlying OpenSSL 3
/// `EVP_PKEY` is safe to use from many threads at once for verification (see `EVPKey`).
public final class P256PublicKey: @unchecked Sendable {
    /// The size of one coordinate, and of each half of an ES256 signature, in bytes.
    public static let coordinateByteCount = 32

    let key: EVPKey

    /// The affine x coordinate, 32 bytes big-endian.
    public let x: [UInt8]
    /// The affine y coordinate, 32 bytes big-endian.
    public let y: [UInt8]

    /// The point (`x`, `y`), each exactly 32 big-endian bytes as in a JWK's `x` and `y` (RFC 7518
    /// section 6.2.1 requires the full length).
    ///
    /// - Throws: `CryptoError.invalidKey` when a coordinate is not 32 bytes or the point is not on the
    ///   curve (OpenSSL's full public-key check).
    public init(x: [UInt8], y: [UInt8]) throws {
        guard x.count == Self.coordinateByteCount, y.count == Self.coordinateByteCount else {
            throw CryptoError(code: .invalidKey, message: "P-256 coordinates must be 32 bytes each")
        }
        key = try EVPKey.fromPublicParameters(
            algorithm: "EC", [.text("group", "prime256v1"), .octets("pub", [0x04] + x + y)])
        guard key.passesPublicCheck() else {
            throw CryptoError(code: .invalidKey, message: "the point is not a valid P-256 public key")
        }
        self.x = x
        self.y = y
    }

    /// Whether `signature`, in JOSE form (64 bytes: `r || s`, each 32 bytes big-endian), is a valid ES256
    /// signature of `message` under this key. Any failure, including a DER-encoded signature, is `false`.
    ///
    /// The shape is checked before OpenSSL sees it: exactly 64 bytes, and neither `r` nor `s` zero. OpenSSL then
    /// refuses an `r` or `s` not below the group order. A high `s` (`n - s`, the other valid signature of the same
    /// message) verifies: JWS (RFC 7518 section 3.4) does not require low-S, and OpenSSL does not either.
    public func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        let size = Self.coordinateByteCount
        guard signature.count == 2 * size, signature[..<size].contains(where: { $0 != 0 }),
            signature[size...].contains(where: { $0 != 0 })
        else { return false }
        guard let der = ECDSASignature.der(fromRaw: signature, coordinateSize: Self.coordinateByteCount) else {
            return false
        }
        return key.verifySHA256(signature: der, message: message)
    }

    /// Whether `derSignature`, an ASN.1 DER `ECDSA-Sig-Value` (how WebAuthn authenticators sign, unlike JOSE's
    /// raw `r || s`), is a valid ECDSA signature with SHA-256 of `message` under this key. Any failure is `false`.
    public func verifySHA256(derSignature: [UInt8], message: [UInt8]) -> Bool {
        // Two 33-byte integers and their headers are at most 72 bytes.
        guard derSignature.count <= 72 else { return false }
        return key.verifySHA256(signature: derSignature, message: message)
    }
}
