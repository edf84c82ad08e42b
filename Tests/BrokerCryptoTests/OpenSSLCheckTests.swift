@testable import BrokerCrypto
import Testing

/// `openSSLCheck`, the one funnel for OpenSSL calls that return 1 on success.
@Suite struct OpenSSLCheckTests {
    @Test func oneIsSuccess() throws {
        try openSSLCheck(1, .invalidKey, "EVP_Example")
    }

    @Test(arguments: [Int32(0), -1, 2])
    func anyOtherResultThrowsTheCodeNamingTheCall(result: Int32) {
        let error = #expect(throws: CryptoError.self) { try openSSLCheck(result, .derivationFailed, "EVP_Example") }
        #expect(error?.code == .derivationFailed)
        #expect(error?.message.hasPrefix("EVP_Example failed") == true)
    }

    @Test func aFailureInsideOpenSSLIsReportedAndLeavesItsErrorQueueEmpty() {
        // An N that is not a power of two fails inside OpenSSL: the funnel reports it and empties the queue.
        let error = #expect(throws: CryptoError.self) {
            try Scrypt.derive(password: [1], salt: [2], n: 3, r: 8, p: 1, length: 32)
        }
        #expect(error?.code == .derivationFailed)
        #expect(OpenSSLErrorQueue.drain() == nil)
    }

    @Test func aRefusedKeyIsInvalidKeyAndLeavesTheQueueEmpty() throws {
        // A point off the curve: EVP_PKEY_fromdata or the public check refuses it, through the funnel.
        let offCurve = #expect(throws: CryptoError.self) {
            try P256PublicKey(x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32))
        }
        #expect(offCurve?.code == .invalidKey)
        #expect(OpenSSLErrorQueue.drain() == nil)
        let garbage = #expect(throws: CryptoError.self) {
            try RSAPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
        #expect(garbage?.code == .invalidKey)
        #expect(OpenSSLErrorQueue.drain() == nil)
    }

    @Test func aSignatureThatDoesNotVerifyIsFalseAndLeavesTheQueueEmpty() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("message".utf8)
        let signature = try key.signSHA256(message)
        #expect(key.publicKey.verifySHA256(signature: signature, message: message))
        #expect(OpenSSLErrorQueue.drain() == nil)
        var tampered = signature
        tampered[10] ^= 0x01
        #expect(!key.publicKey.verifySHA256(signature: tampered, message: message))
        #expect(OpenSSLErrorQueue.drain() == nil)
        let rsa = SharedKeys.rsa2048
        let rsaSignature = try rsa.signSHA256(message)
        #expect(rsa.publicKey.verifySHA256(signature: rsaSignature, message: message))
        #expect(!rsa.publicKey.verifySHA256(signature: Array(rsaSignature.dropLast()), message: message))
        #expect(OpenSSLErrorQueue.drain() == nil)
    }
}
