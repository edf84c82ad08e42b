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
}
