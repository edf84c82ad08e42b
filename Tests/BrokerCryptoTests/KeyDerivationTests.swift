import BrokerCrypto
import Testing

@Suite struct KeyDerivationTests {
    /// RFC 7914 section 12.
    @Test func scryptKnownAnswers() throws {
        let empty = try Scrypt.derive(password: [], salt: [], n: 16, r: 1, p: 1, length: 64)
        #expect(Hex.encode(empty) == "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
            + "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906")
        let nacl = try Scrypt.derive(password: Array("password".utf8), salt: Array("NaCl".utf8), n: 1024, r: 8, p: 16, length: 64)
        #expect(Hex.encode(nacl) == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
            + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640")
    }

    @Test(arguments: [(UInt64(3), UInt64(1), UInt64(1)), (0, 1, 1), (16, 0, 1), (16, 1, 0)])
    func scryptRefusesParametersOpenSSLCannotUse(n: UInt64, r: UInt64, p: UInt64) {
        #expect(throws: CryptoError.self) { try Scrypt.derive(password: [1], salt: [2], n: n, r: r, p: p, length: 32) }
        do {
            _ = try Scrypt.derive(password: [1], salt: [2], n: n, r: r, p: p, length: 32)
        } catch let error as CryptoError {
            #expect(error.code == .derivationFailed)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func scryptMemoryIsComputedWithoutOverflow() {
        #expect(Scrypt.memoryNeeded(n: 16384, r: 8, p: 1) == 128 * 8 * (16384 + 2) + 128 * 8)
        #expect(Scrypt.memoryNeeded(n: .max, r: 8, p: 1) == nil)
        #expect(Scrypt.memoryNeeded(n: 1 << 60, r: 1 << 10, p: 1) == nil)
    }

    /// The widely published PBKDF2-HMAC-SHA256 answers for "password" / "salt".
    @Test func pbkdf2KnownAnswers() throws {
        let one = try PBKDF2.sha256(password: Array("password".utf8), salt: Array("salt".utf8), iterations: 1, length: 32)
        #expect(Hex.encode(one) == "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b")
        let many = try PBKDF2.sha256(password: Array("password".utf8), salt: Array("salt".utf8), iterations: 4096, length: 32)
        #expect(Hex.encode(many) == "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a")
        #expect(throws: CryptoError.self) { try PBKDF2.sha256(password: [1], salt: [1], iterations: 0, length: 32) }
    }

    /// NIST SP 800-38A F.5.5 (CTR-AES256.Encrypt), two blocks; and decryption is the same operation.
    @Test func aes256CTRKnownAnswer() throws {
        let key32 = TestSupport.bytes(hex: "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
        let iv16 = TestSupport.bytes(hex: "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        let text = TestSupport.bytes(hex: "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
        let cipher = try AESCTR.aes256(key: key32, iv: iv16, data: text)
        #expect(Hex.encode(cipher) == "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5")
        #expect(try AESCTR.aes256(key: key32, iv: iv16, data: cipher) == text)
        #expect(try AESCTR.aes256(key: key32, iv: iv16, data: []) == [])
        #expect(throws: CryptoError.self) { try AESCTR.aes256(key: Array(key32.prefix(16)), iv: iv16, data: text) }
    }
}
