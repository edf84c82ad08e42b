import BrokerCrypto
import Testing

@Suite struct RSAPEMTests {
    let message = Array("signed by a PEM key".utf8)

    @Test func pkcs8RoundTripKeepsTheKey() throws {
        let key = SharedKeys.rsa2048
        let pem = try key.pemPKCS8()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let reloaded = try RSAPrivateKey(pem: pem)
        #expect(reloaded.publicKey.modulus == key.publicKey.modulus)
        #expect(reloaded.publicKey.exponent == key.publicKey.exponent)
        #expect(key.publicKey.verifySHA256(signature: try reloaded.signSHA256(message), message: message))
        #expect(try reloaded.pemPKCS8() == pem)
    }

    @Test func serviceAccountStyleEscapedLineBreaksAreAccepted() throws {
        let key = SharedKeys.rsa2048
        let escaped = try key.pemPKCS8().replacing("\n", with: "\\n")
        #expect(!escaped.contains("\n"))
        let reloaded = try RSAPrivateKey(pem: escaped)
        #expect(reloaded.publicKey.modulus == key.publicKey.modulus)
    }

    @Test func pkcs1IsAccepted() throws {
        let key = try RSAPrivateKey(pem: Fixtures.rsaPKCS1PEM)
        #expect(Hex.encode(key.publicKey.modulus) == Fixtures.rsaPKCS1ModulusHex)
        #expect(key.publicKey.bitCount == 2048)
        #expect(key.publicKey.verifySHA256(signature: try key.signSHA256(message), message: message))
        // Re-exported as PKCS#8, it is still the same key.
        let pkcs8 = try key.pemPKCS8()
        #expect(pkcs8.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try RSAPrivateKey(pem: pkcs8).publicKey.modulus == key.publicKey.modulus)
    }

    /// PEM documents that are not an unencrypted RSA private key, by label (labels keep key text out of
    /// the test log).
    static let refusedPEMs: [String: String] = [
        "EC key": Fixtures.p256SEC1PEM,
        "P-384 key": Fixtures.p384PKCS8PEM,
        "Ed25519 key": Fixtures.ed25519PKCS8PEM,
        "encrypted key": Fixtures.encryptedPKCS8PEM,
        "empty": "",
        "garbage": "not a pem at all",
        "truncated": String(Fixtures.rsaPKCS1PEM.prefix(400)),
        "armour only": "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n",
    ]

    @Test(arguments: refusedPEMs.keys.sorted())
    func nonRSAOrBrokenPEMIsRefused(label: String) throws {
        let pem = try #require(Self.refusedPEMs[label])
        let error = #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: pem) }
        #expect(error?.code == .invalidKey)
        // The message never echoes key material.
        let bodyLines = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count > 8 }
        for line in bodyLines {
            #expect(error?.message.contains(line) == false)
        }
    }
}
