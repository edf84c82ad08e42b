import COpenSSL

/// An RSA public key, for verifying RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256).
///
/// `@unchecked Sendable`: all stored properties are immutable after `init`, and the underlying OpenSSL 3
/// `EVP_PKEY` is safe to use from many threads at once for verification (see `EVPKey`).
public final class RSAPublicKey: @unchecked Sendable {
    /// Smallest modulus accepted, in bits. Callers enforce their own, stricter policy with `bitCount`.
    public static let minimumBitCount = 1024
    /// Largest modulus accepted, in bits (OpenSSL's own limit; bounds the cost of a hostile JWKS key).
    public static let maximumBitCount = 16384
    /// Largest public exponent accepted, in bytes (bounds verification cost).
    public static let maximumExponentByteCount = 8

    let key: EVPKey

    /// The modulus `n`, big-endian, without leading zero bytes.
    public let modulus: [UInt8]
    /// The public exponent `e`, big-endian, without leading zero bytes.
    public let exponent: [UInt8]
    /// The size of the modulus in bits (2048 for a 2048-bit key).
    public let bitCount: Int

    /// The key with modulus `modulus` and exponent `exponent`, given as big-endian bytes (as in a JWK's
    /// `n` and `e` after base64url decoding; leading zero bytes are ignored).
    ///
    /// - Throws: `CryptoError.invalidKey` when the modulus is outside
    ///   `minimumBitCount...maximumBitCount` or even, or the exponent is even, below 3 or longer than
    ///   `maximumExponentByteCount` bytes.
    public init(modulus: [UInt8], exponent: [UInt8]) throws {
        let n = Array(modulus.drop { $0 == 0 })
        let e = Array(exponent.drop { $0 == 0 })
        let bits = n.first.map { n.count * 8 - $0.leadingZeroBitCount } ?? 0
        guard (Self.minimumBitCount...Self.maximumBitCount).contains(bits), let lastN = n.last, lastN & 1 == 1
        else {
            throw CryptoError(
                code: .invalidKey,
                message: "RSA modulus must be an odd number of \(Self.minimumBitCount) to \(Self.maximumBitCount) bits, got \(bits) bits")
        }
        guard let lastE = e.last, lastE & 1 == 1, e.count <= Self.maximumExponentByteCount, e != [1] else {
            throw CryptoError(
                code: .invalidKey,
                message: "RSA exponent must be odd, at least 3 and at most \(Self.maximumExponentByteCount) bytes")
        }
        let modulusNumber = try BigNum(bigEndian: n)
        let exponentNumber = try BigNum(bigEndian: e)
        key = try EVPKey.fromPublicParameters(
            algorithm: "RSA", [.integer("n", modulusNumber), .integer("e", exponentNumber)])
        self.modulus = n
        self.exponent = e
        self.bitCount = key.bits
    }

    /// Whether `signature` is a valid RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature of `message`
    /// under this key. Any failure, including a signature of the wrong length, is `false`.
    public func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        key.verifySHA256(signature: signature, message: message)
    }
}
