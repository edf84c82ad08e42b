import BrokerCrypto
import Testing

@Suite("AES-256-GCM")
struct AESGCMTests {
    static let key = TestSupport.fixture { try AESGCMKey(bytes: Array(0..<32)) }

    @Test func sealThenOpenRoundTrips() throws {
        let plaintext = Array("reset code 4711 for alice@example.com".utf8)
        let box = try Self.key.seal(plaintext, authenticating: Array("job-1".utf8))
        #expect(box.count == AESGCMKey.nonceLength + plaintext.count + AESGCMKey.tagLength)
        #expect(!box.starts(with: plaintext))
        #expect(try Self.key.open(box, authenticating: Array("job-1".utf8)) == plaintext)
    }

    @Test func emptyPlaintextRoundTrips() throws {
        let box = try Self.key.seal([])
        #expect(box.count == AESGCMKey.nonceLength + AESGCMKey.tagLength)
        #expect(try Self.key.open(box) == [])
    }

    @Test func eachSealUsesAFreshNonce() throws {
        let first = try Self.key.seal(Array("same".utf8))
        let second = try Self.key.seal(Array("same".utf8))
        #expect(first[0..<12] != second[0..<12])
        #expect(first != second)
    }

    /// NIST GCM test case 14 (AES-256, zero key, zero IV, one zero block).
    @Test func opensTheNISTVector() throws {
        let zero = try AESGCMKey(bytes: [UInt8](repeating: 0, count: 32))
        let box =
            [UInt8](repeating: 0, count: 12) + TestSupport.bytes(hex: "cea7403d4d606b6e074ec5d3baf39d18")
            + TestSupport.bytes(hex: "d0d1c8a799996bf0265b98b5d48ab919")
        #expect(try zero.open(box) == [UInt8](repeating: 0, count: 16))
    }

    @Test(arguments: [0, 12, 20, 36])
    func aTamperedBoxDoesNotOpen(index: Int) throws {
        // 0: nonce, 12 and 20: ciphertext, 36: tag (for a 16-byte plaintext).
        let box = try Self.key.seal(Array("0123456789abcdef".utf8))
        let error = #expect(throws: CryptoError.self) { try Self.key.open(TestSupport.flipping(box, at: index)) }
        #expect(error?.code == .decryptionFailed)
    }

    @Test func otherAssociatedDataOrKeyDoesNotOpen() throws {
        let box = try Self.key.seal(Array("secret".utf8), authenticating: Array("job-1".utf8))
        let moved = #expect(throws: CryptoError.self) { try Self.key.open(box, authenticating: Array("job-2".utf8)) }
        #expect(moved?.code == .decryptionFailed)
        let other = try AESGCMKey(bytes: [UInt8](repeating: 7, count: 32))
        let wrongKey = #expect(throws: CryptoError.self) { try other.open(box, authenticating: Array("job-1".utf8)) }
        #expect(wrongKey?.code == .decryptionFailed)
    }

    @Test func aTruncatedBoxDoesNotOpen() throws {
        let box = try Self.key.seal(Array("secret".utf8))
        let error = #expect(throws: CryptoError.self) { try Self.key.open(Array(box.prefix(27))) }
        #expect(error?.code == .decryptionFailed)
        let short = #expect(throws: CryptoError.self) { try Self.key.open(Array(box.prefix(5))) }
        #expect(short?.code == .decryptionFailed)
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func aKeyOfTheWrongLengthIsRefused(length: Int) {
        let error = #expect(throws: CryptoError.self) { try AESGCMKey(bytes: [UInt8](repeating: 1, count: length)) }
        #expect(error?.code == .invalidKey)
    }

    @Test func parsesABase64KeyAndRefusesOthers() throws {
        let text = " " + Base64.encode([UInt8](repeating: 9, count: 32)) + "\n"
        let parsed = try AESGCMKey(base64: text)
        let same = try AESGCMKey(bytes: [UInt8](repeating: 9, count: 32))
        #expect(try same.open(parsed.seal(Array("x".utf8))) == Array("x".utf8))
        let notBase64 = #expect(throws: CryptoError.self) { try AESGCMKey(base64: "not base64!") }
        #expect(notBase64?.code == .invalidKey)
        let short = #expect(throws: CryptoError.self) { try AESGCMKey(base64: Base64.encode([1, 2, 3])) }
        #expect(short?.code == .invalidKey)
    }
}
