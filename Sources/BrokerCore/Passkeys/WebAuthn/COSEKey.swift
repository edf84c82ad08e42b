public import BrokerCBOR
import BrokerCrypto
public import BrokerModel

/// A passkey's public key, from its COSE form (RFC 9052/9053, WebAuthn Level 3 section 5.8.5), as an OpenSSL key:
/// ES256 (-7, P-256), EdDSA (-8) and Ed25519 (-19) on Ed25519, RS256 (-257). Anything else is refused.
public struct COSEKey: Sendable {
    /// The COSE algorithms the broker takes, in the order registration options offer them.
    public enum Algorithm: Int64, Sendable, CaseIterable {
        /// ECDSA with SHA-256 on P-256.
        case es256 = -7
        /// Ed25519 (the fully specified identifier).
        case ed25519 = -19
        /// EdDSA, the older identifier (only Ed25519 is taken).
        case edDSA = -8
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = -257
    }

    /// The verifying key.
    enum Verifier: Sendable {
        case p256(P256PublicKey)
        case ed25519(Ed25519PublicKey)
        case rsa(RSAPublicKey)
    }

    /// The key's algorithm.
    public let algorithm: Algorithm
    let verifier: Verifier

    // COSE labels (RFC 9052 section 7.1, RFC 9053 section 7).
    private static let kty: Int64 = 1
    private static let alg: Int64 = 3
    private static let crv: Int64 = -1
    private static let x: Int64 = -2
    private static let y: Int64 = -3
    private static let rsaN: Int64 = -1
    private static let rsaE: Int64 = -2

    /// The key in the decoded COSE map `value`.
    ///
    /// - Throws: `WebAuthnError` (`unsupportedKey`) for another algorithm, key type or curve, a missing or
    ///   malformed parameter, or a key OpenSSL refuses (a point off the curve, a small modulus).
    public init(_ value: CBORValue) throws(WebAuthnError) {
        guard value.entries != nil, let number = value[integer: Self.alg]?.integer,
            let algorithm = Algorithm(rawValue: number), let kty = value[integer: Self.kty]?.integer
        else { throw WebAuthnError(.unsupportedKey) }
        self.algorithm = algorithm
        do {
            switch algorithm {
            case .es256:
                // EC2 on P-256 (crv 1).
                guard kty == 2, value[integer: Self.crv]?.integer == 1, let x = value[integer: Self.x]?.bytes,
                    let y = value[integer: Self.y]?.bytes
                else { throw WebAuthnError(.unsupportedKey) }
                verifier = .p256(try P256PublicKey(x: x, y: y))
            case .ed25519, .edDSA:
                // OKP on Ed25519 (crv 6).
                guard kty == 1, value[integer: Self.crv]?.integer == 6, let x = value[integer: Self.x]?.bytes else {
                    throw WebAuthnError(.unsupportedKey)
                }
                verifier = .ed25519(try Ed25519PublicKey(bytes: x))
            case .rs256:
                guard kty == 3, let n = value[integer: Self.rsaN]?.bytes, let e = value[integer: Self.rsaE]?.bytes
                else {
                    throw WebAuthnError(.unsupportedKey)
                }
                verifier = .rsa(try RSAPublicKey(modulus: n, exponent: e))
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError(.unsupportedKey)
        }
    }

    /// The key in the COSE bytes `bytes` (as stored at registration).
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        guard let value = try? CBORDecoder.decode(bytes) else { throw WebAuthnError(.unsupportedKey) }
        try self.init(value)
    }

    /// Whether `signature` is this key's signature over `message`, in WebAuthn's encodings: DER for ES256, raw
    /// 64 bytes for Ed25519, PKCS#1 v1.5 for RS256.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        switch verifier {
        case .p256(let key): key.verifySHA256(derSignature: signature, message: message)
        case .ed25519(let key): key.verify(signature: signature, message: message)
        case .rsa(let key): key.verifySHA256(signature: signature, message: message)
        }
    }
}
