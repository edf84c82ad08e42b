import BrokerCrypto
import Testing

/// ES256 verification against vectors made outside the broker: `scripts/make-es256-vectors.py` (Python's
/// `cryptography` package, 48.0) generated the key, signed the message and built the high-S twin.
@Suite struct ES256VectorTests {
    static let x = "6bY9z0KVJc1Zmbg0lYckFKfEBgrOaqUmmfM0v6DGO8c"
    static let y = "sA5heQzc8P0ACQAEkGdL51sBE3tmg7SV60il4i11fT0"
    static let message = Array("eyJhbGciOiJFUzI1NiIsImtpZCI6InYxIn0.eyJzdWIiOiJVMTIzIn0".utf8)
    static let signature = "RmnITsMfLlGS5MxzFIVtBrpYWj4LByqsHjYw-vcvyBfE2O9vg72CKoyq--zLB8mqcqMh7SLfaTM-AyLHI042ww"
    static let highS = "RmnITsMfLlGS5MxzFIVtBrpYWj4LByqsHjYw-vcvyBc7JxCPfEJ91nNVBBM0-DZVSkPYwIQ4NVG1tqf72RTujg"
    /// The order n of the P-256 group, big-endian, base64url.
    static let order = "_____wAAAAD__________7zm-q2nF56E87nKwvxjJVE"

    func key() throws -> P256PublicKey {
        try P256PublicKey(
            x: try #require(Base64URL.decode(Self.x)), y: try #require(Base64URL.decode(Self.y)))
    }

    func bytes(_ text: String) throws -> [UInt8] { try #require(Base64URL.decode(text)) }

    @Test func theIndependentSignatureVerifies() throws {
        let signature = try bytes(Self.signature)
        #expect(signature.count == 64)
        #expect(try key().verifySHA256(signature: signature, message: Self.message))
        #expect(try !key().verifySHA256(signature: signature, message: Self.message + [0x2E]))
    }

    @Test func theHighSTwinVerifiesAsJWSAllows() throws {
        // OpenSSL accepts (r, n - s); JWS does not ask for low-S. Both halves differ from the original's s.
        let high = try bytes(Self.highS)
        #expect(high[..<32] == (try bytes(Self.signature))[..<32])
        #expect(high[32...] != (try bytes(Self.signature))[32...])
        #expect(try key().verifySHA256(signature: high, message: Self.message))
    }

    @Test func malformedShapesAreRefused() throws {
        let good = try bytes(Self.signature)
        let r = Array(good[..<32])
        let s = Array(good[32...])
        let zero = [UInt8](repeating: 0, count: 32)
        let order = try bytes(Self.order)
        let refused: [(String, [UInt8])] = [
            ("63 bytes", Array(good.dropLast())),
            ("65 bytes", good + [0]),
            ("empty", []),
            ("r zero", zero + s),
            ("s zero", r + zero),
            ("r equal to n", order + s),
            ("s equal to n", r + order),
            ("DER form", [0x30, 0x44, 0x02, 0x20] + r + [0x02, 0x20] + s),
        ]
        for (label, signature) in refused {
            #expect(try !key().verifySHA256(signature: signature, message: Self.message), "\(label)")
        }
    }

    @Test func aP384PointIsNotAP256Key() throws {
        let x = try bytes("hN49KXP0vclQ0gEEjSFbKtSMBJ15TRbCgMxCcqZsBxCk7fjUA3sHPS6hxbxbWPy-")
        let y = try bytes("Km3ry8Rsb-5NX7rjJbFmw4o_G-QANx_lPBfgz-A9k19yqY3JHrzUq92-4Ao8jdWw")
        let error = #expect(throws: CryptoError.self) { try P256PublicKey(x: x, y: y) }
        #expect(error?.code == .invalidKey)
    }
}
