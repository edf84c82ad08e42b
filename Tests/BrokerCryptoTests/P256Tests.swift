import BrokerCrypto
import Testing

@Suite struct P256Tests {
    let key = SharedKeys.p256
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxMjMifQ".utf8)

    @Test func signatureIsRawSixtyFourBytesAndVerifies() throws {
        let signature = try key.signSHA256(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verifySHA256(signature: signature, message: message))
        // ECDSA is randomised; both signatures verify.
        let second = try key.signSHA256(message)
        #expect(second != signature)
        #expect(key.publicKey.verifySHA256(signature: second, message: message))
    }

    @Test(arguments: 0..<20)
    func manySignaturesVerifyIncludingShortHalves(round: Int) throws {
        // About 1 in 128 signatures has an r or s below 2^248; repeating exercises the left padding.
        let message = Array("round \(round)".utf8)
        let signature = try key.signSHA256(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verifySHA256(signature: signature, message: message))
    }

    @Test(arguments: [0, 20, 38])
    func tamperedMessageFails(index: Int) throws {
        let signature = try key.signSHA256(message)
        #expect(!key.publicKey.verifySHA256(signature: signature, message: TestSupport.flipping(message, at: index)))
    }

    @Test(arguments: [0, 31, 32, 63])
    func tamperedSignatureFails(index: Int) throws {
        let signature = try key.signSHA256(message)
        #expect(!key.publicKey.verifySHA256(signature: TestSupport.flipping(signature, at: index), message: message))
    }

    @Test func malformedSignaturesFail() throws {
        let signature = try key.signSHA256(message)
        let publicKey = key.publicKey
        #expect(!publicKey.verifySHA256(signature: [], message: message))
        #expect(!publicKey.verifySHA256(signature: Array(signature.dropLast()), message: message))
        #expect(!publicKey.verifySHA256(signature: signature + [0], message: message))
        #expect(!publicKey.verifySHA256(signature: [UInt8](repeating: 0, count: 64), message: message))
        #expect(!publicKey.verifySHA256(signature: [UInt8](repeating: 0xFF, count: 64), message: message))
        // r and s swapped.
        #expect(!publicKey.verifySHA256(signature: Array(signature[32...] + signature[..<32]), message: message))
    }

    @Test func anotherKeysSignatureFails() throws {
        let signature = try SharedKeys.otherP256.signSHA256(message)
        #expect(!key.publicKey.verifySHA256(signature: signature, message: message))
    }

    @Test func publicKeyFromXAndYVerifies() throws {
        let publicKey = key.publicKey
        #expect(publicKey.x.count == 32)
        #expect(publicKey.y.count == 32)
        let rebuilt = try P256PublicKey(x: publicKey.x, y: publicKey.y)
        #expect(rebuilt.x == publicKey.x && rebuilt.y == publicKey.y)
        #expect(rebuilt.verifySHA256(signature: try key.signSHA256(message), message: message))
        #expect(!rebuilt.verifySHA256(signature: try SharedKeys.otherP256.signSHA256(message), message: message))
    }

    static let goodX = SharedKeys.p256.publicKey.x
    static let goodY = SharedKeys.p256.publicKey.y

    @Test(arguments: [
        ("point off the curve", goodX, TestSupport.flipping(goodY, at: 31)),
        ("x and y swapped", goodY, goodX),
        ("point at zero", [UInt8](repeating: 0, count: 32), [UInt8](repeating: 0, count: 32)),
        ("coordinates above the field prime", [UInt8](repeating: 0xFF, count: 32), [UInt8](repeating: 0xFF, count: 32)),
        ("short x", Array(goodX.dropFirst()), goodY),
        ("long y", goodX, [0] + goodY),
        ("empty", [], []),
    ])
    func invalidPointsAreRefused(label: String, x: [UInt8], y: [UInt8]) {
        let error = #expect(throws: CryptoError.self, "\(label)") { try P256PublicKey(x: x, y: y) }
        #expect(error?.code == .invalidKey)
    }

    // RFC 7515 Appendix A.3: the example ES256 JWS and its key's x and y.
    @Test func verifiesTheRFC7515ExampleJWS() throws {
        let x = try #require(Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"))
        let y = try #require(Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        let signature = try #require(
            Base64URL.decode("DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"))
        let input = Array(
            "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
                .utf8)
        let publicKey = try P256PublicKey(x: x, y: y)
        #expect(publicKey.verifySHA256(signature: signature, message: input))
        #expect(!publicKey.verifySHA256(signature: signature, message: input + [0x20]))
        #expect(!publicKey.verifySHA256(signature: TestSupport.flipping(signature, at: 5), message: input))
    }

    @Test func pkcs8RoundTripKeepsTheKey() throws {
        let pem = try key.pemPKCS8()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let reloaded = try P256PrivateKey(pem: pem)
        #expect(reloaded.publicKey.x == key.publicKey.x)
        #expect(reloaded.publicKey.y == key.publicKey.y)
        #expect(key.publicKey.verifySHA256(signature: try reloaded.signSHA256(message), message: message))
        let escaped = pem.replacing("\n", with: "\\n")
        #expect(try P256PrivateKey(pem: escaped).publicKey.x == key.publicKey.x)
    }

    @Test func sec1IsAccepted() throws {
        let key = try P256PrivateKey(pem: Fixtures.p256SEC1PEM)
        #expect(Hex.encode([0x04] + key.publicKey.x + key.publicKey.y) == Fixtures.p256SEC1PointHex)
        #expect(key.publicKey.verifySHA256(signature: try key.signSHA256(message), message: message))
    }

    /// PEM documents that are not an unencrypted P-256 private key, by label.
    static let refusedPEMs: [String: String] = [
        "P-384 key": Fixtures.p384PKCS8PEM,
        "RSA key": Fixtures.rsaPKCS1PEM,
        "Ed25519 key": Fixtures.ed25519PKCS8PEM,
        "encrypted key": Fixtures.encryptedPKCS8PEM,
        "garbage": "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
    ]

    @Test(arguments: refusedPEMs.keys.sorted())
    func otherKeysAreRefused(label: String) throws {
        let pem = try #require(Self.refusedPEMs[label])
        let error = #expect(throws: CryptoError.self) { try P256PrivateKey(pem: pem) }
        #expect(error?.code == .invalidKey)
    }

    @Test func concurrentSigningAndVerifyingShareOneKey() async {
        let key = self.key
        let results = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var ok = true
                    for round in 0..<20 {
                        let message = Array("task \(task) round \(round)".utf8)
                        guard let signature = try? key.signSHA256(message) else { return false }
                        ok = ok && key.publicKey.verifySHA256(signature: signature, message: message)
                        ok = ok && !key.publicKey.verifySHA256(signature: signature, message: message + [1])
                    }
                    return ok
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}
