import BrokerCrypto
import Testing

@Suite struct DigestTests {
    /// FIPS 180-2 / NIST examples.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256KnownAnswers(input: String, expectedHex: String) {
        #expect(Hex.encode(Digest.sha256(input)) == expectedHex)
        #expect(Hex.encode(Digest.sha256(Array(input.utf8))) == expectedHex)
    }

    @Test func sha256OfAMillionAs() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            Hex.encode(Digest.sha256(input)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// RFC 4231 test cases 1, 2 and 6 (key longer than the block size), plus the empty key and message.
    @Test(arguments: [
        (
            [UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xAA, count: 131),
            Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        ([], [], "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
    ])
    func hmacSHA256KnownAnswers(key: [UInt8], message: [UInt8], expectedHex: String) {
        #expect(Hex.encode(HMAC.sha256(key: key, message: message)) == expectedHex)
    }

    /// Each digest the imported password hashes use, by OpenSSL, against Python's hashlib and hmac:
    /// `hashlib.new(a, b"abc")`, `hmac.new(b"Jefe", b"what do ya want for nothing?", a)` (RFC 2202 / 4231 case 2)
    /// and `hashlib.pbkdf2_hmac(a, b"password", b"salt", 2, 20)`.
    @Test(arguments: [
        (
            DigestAlgorithm.md5, "900150983cd24fb0d6963f7d28e17f72", "750c783e6ab0b503eaa86e310a5db738",
            "042407b552be345ad6eee2cf2f7ed01dd9662d8f"
        ),
        (
            .sha1, "a9993e364706816aba3e25717850c26c9cd0d89d", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
            "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"
        ),
        (
            .sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            "ae4d0c95af6b46d32d0adff928f06dd02a303f8e"
        ),
        (
            .sha512,
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                + "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
            "e1d9c16aa681708a45f5c7c4e215ceb66e011a2e"
        ),
    ])
    func everyDigestKnownAnswers(algorithm: DigestAlgorithm, digest: String, mac: String, derived: String) throws {
        #expect(Hex.encode(Digest.hash(algorithm, Array("abc".utf8))) == digest)
        #expect(Digest.hash(algorithm, []).count == algorithm.length)
        let message = Array("what do ya want for nothing?".utf8)
        #expect(Hex.encode(HMAC.mac(algorithm, key: Array("Jefe".utf8), message: message)) == mac)
        let key = try PBKDF2.derive(
            algorithm, password: Array("password".utf8), salt: Array("salt".utf8), iterations: 2, length: 20)
        #expect(Hex.encode(key) == derived)
    }

    @Test func hmacDependsOnKeyAndMessage() {
        let tag = HMAC.sha256(key: Array("k".utf8), message: Array("m".utf8))
        #expect(tag.count == 32)
        #expect(tag != HMAC.sha256(key: Array("K".utf8), message: Array("m".utf8)))
        #expect(tag != HMAC.sha256(key: Array("k".utf8), message: Array("M".utf8)))
    }

    @Test(arguments: [
        ([UInt8](), ""),
        ([0x00, 0x01, 0x7F, 0x80, 0xAB, 0xFF], "00017f80abff"),
    ])
    func hexEncodesLowercase(bytes: [UInt8], expected: String) {
        #expect(Hex.encode(bytes) == expected)
    }

    @Test func secureRandomGivesDistinctBytesOfTheRightLength() {
        let first = SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != SecureRandom.bytes(32))
    }
}
