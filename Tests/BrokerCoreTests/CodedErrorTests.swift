import BrokerCore
import BrokerCrypto
import BrokerModel
import Testing

/// BrokerCrypto's error reads like every other layer's ``CodedError``.
@Suite struct CodedErrorTests {
    func described<E: CodedError>(_ error: E) -> (code: String, detail: String, description: String) {
        (error.code.rawValue, error.detail, error.description)
    }

    @Test func aCryptoErrorIsACodedError() {
        let error = CryptoError(code: .invalidKey, message: "the point is not a valid P-256 public key")
        let coded = described(error)
        #expect(coded.code == "invalidKey")
        #expect(coded.detail == "the point is not a valid P-256 public key")
        #expect(coded.description == "invalidKey: the point is not a valid P-256 public key")
    }
}
