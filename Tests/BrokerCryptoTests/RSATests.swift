import BrokerCrypto
import Testing

@Suite struct RSATests {
    let key = SharedKeys.rsa2048
    let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ".utf8)

    @Test func signatureVerifiesAndIsModulusSized() throws {
        let signature = try key.signSHA256(message)
        #expect(signature.count == 256)
        #expect(key.publicKey.verifySHA256(signature: signature, message: message))
        // PKCS#1 v1.5 is deterministic.
        #expect(try key.signSHA256(message) == signature)
    }

    @Test func emptyMessageSignsAndVerifies() throws {
        let signature = try key.signSHA256([])
        #expect(key.publicKey.verifySHA256(signature: signature, message: []))
        #expect(!key.publicKey.verifySHA256(signature: signature, message: [0]))
    }

    @Test(arguments: [0, 17, 38])
    func tamperedMessageFails(index: Int) throws {
        let signature = try key.signSHA256(message)
        #expect(!key.publicKey.verifySHA256(signature: signature, message: TestSupport.flipping(message, at: index)))
    }

    @Test(arguments: [0, 1, 128, 255])
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
        #expect(!publicKey.verifySHA256(signature: [0] + signature, message: message))
        #expect(!publicKey.verifySHA256(signature: [UInt8](repeating: 0xFF, count: 256), message: message))
    }

    @Test func anotherKeysSignatureFails() throws {
        let signature = try SharedKeys.otherRSA2048.signSHA256(message)
        #expect(!key.publicKey.verifySHA256(signature: signature, message: message))
    }

    @Test func publicKeyRebuiltFromModulusAndExponentVerifies() throws {
        let publicKey = key.publicKey
        #expect(publicKey.exponent == [0x01, 0x00, 0x01])
        #expect(publicKey.modulus.count == 256)
        #expect(publicKey.modulus.first != 0)
        let rebuilt = try RSAPublicKey(modulus: publicKey.modulus, exponent: publicKey.exponent)
        #expect(rebuilt.bitCount == 2048)
        #expect(rebuilt.verifySHA256(signature: try key.signSHA256(message), message: message))
        #expect(!rebuilt.verifySHA256(signature: try SharedKeys.otherRSA2048.signSHA256(message), message: message))
    }

    @Test func leadingZeroBytesAreIgnored() throws {
        let publicKey = key.publicKey
        let padded = try RSAPublicKey(modulus: [0, 0] + publicKey.modulus, exponent: [0] + publicKey.exponent)
        #expect(padded.modulus == publicKey.modulus)
        #expect(padded.exponent == publicKey.exponent)
        #expect(padded.bitCount == 2048)
    }

    @Test func bitCounts() throws {
        #expect(key.publicKey.bitCount == 2048)
        let small = try RSAPrivateKey.generate(bits: 1024)
        #expect(small.publicKey.bitCount == 1024)
        #expect(small.publicKey.modulus.count == 128)
        let signature = try small.signSHA256(message)
        #expect(signature.count == 128)
        #expect(small.publicKey.verifySHA256(signature: signature, message: message))
    }

    @Test(arguments: [0, 512, 1023, 16385])
    func unsupportedGenerationSizesAreRefused(bits: Int) {
        let error = #expect(throws: CryptoError.self) { try RSAPrivateKey.generate(bits: bits) }
        #expect(error?.code == .invalidKey)
    }

    static let goodModulus = SharedKeys.rsa2048.publicKey.modulus

    @Test(arguments: [
        ([UInt8](), [0x01, 0x00, 0x01] as [UInt8]),  // no modulus
        ([UInt8](repeating: 0xFF, count: 64), [0x01, 0x00, 0x01]),  // 512 bits
        (Array(goodModulus.dropLast()) + [0x02], [0x01, 0x00, 0x01]),  // even modulus
        ([UInt8](repeating: 0xFF, count: 2049), [0x01, 0x00, 0x01]),  // 16392 bits
        (goodModulus, []),  // no exponent
        (goodModulus, [0x00]),  // zero exponent
        (goodModulus, [0x01]),  // exponent 1
        (goodModulus, [0x01, 0x00, 0x00]),  // even exponent
        (goodModulus, [UInt8](repeating: 0xFF, count: 9)),  // 72-bit exponent
    ])
    func badPublicKeyParametersAreRefused(modulus: [UInt8], exponent: [UInt8]) {
        let error = #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: modulus, exponent: exponent) }
        #expect(error?.code == .invalidKey)
    }

    // RFC 7515 Appendix A.2: the example RS256 JWS and its key's n and e.
    static let rfc7515Modulus =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    static let rfc7515SigningInput =
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let rfc7515Signature =
        "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"

    @Test func verifiesTheRFC7515ExampleJWS() throws {
        let modulus = try #require(Base64URL.decode(Self.rfc7515Modulus))
        let exponent = try #require(Base64URL.decode("AQAB"))
        let signature = try #require(Base64URL.decode(Self.rfc7515Signature))
        let publicKey = try RSAPublicKey(modulus: modulus, exponent: exponent)
        #expect(publicKey.bitCount == 2048)
        let input = Array(Self.rfc7515SigningInput.utf8)
        #expect(publicKey.verifySHA256(signature: signature, message: input))
        #expect(!publicKey.verifySHA256(signature: signature, message: input + [0x20]))
        #expect(!publicKey.verifySHA256(signature: TestSupport.flipping(signature, at: 100), message: input))
    }

    @Test func concurrentSigningAndVerifyingShareOneKey() async throws {
        let key = self.key
        let results = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var ok = true
                    for round in 0..<10 {
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
