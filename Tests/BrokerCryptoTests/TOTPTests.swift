import BrokerCrypto
import Testing

/// Base32 (RFC 4648) and TOTP (RFC 6238) against the RFCs' own test vectors.
@Suite struct TOTPTests {
    /// RFC 4648 section 10.
    @Test(arguments: [
        ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
        ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
    ])
    func base32Vectors(plain: String, encoded: String) {
        let bytes = Array(plain.utf8)
        #expect(Base32.encode(bytes) == encoded)
        #expect(Base32.decode(encoded) == bytes)
        let unpadded = String(encoded.filter { $0 != "=" })
        #expect(Base32.encode(bytes, padded: false) == unpadded)
        #expect(Base32.decode(unpadded) == bytes)
        #expect(Base32.decode(unpadded.lowercased()) == bytes)
    }

    @Test(arguments: ["MZXW6YT!", "M", "MZX", "MZXW6Y", "MZ======", "MZXW6YTC0"])
    func base32RefusesWhatNoEncodingGives(text: String) {
        #expect(Base32.decode(text) == nil)
    }

    @Test(arguments: 0..<30)
    func base32RoundTripsRandomBytes(length: Int) {
        let bytes = SecureRandom.bytes(length)
        #expect(Base32.decode(Base32.encode(bytes)) == bytes)
        #expect(Base32.decode(Base32.encode(bytes, padded: false)) == bytes)
    }

    @Test func base32IgnoresSpacesAsTyped() {
        #expect(Base32.decode("MZXW 6YTB OI") == Array("foobar".utf8))
    }

    /// RFC 6238 appendix B, the SHA-1 rows (the 20-byte ASCII secret `12345678901234567890`, 8 digits).
    @Test(arguments: [
        (59.0, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
        (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func rfc6238Vectors(time: Double, expected: String) {
        let secret = Array("12345678901234567890".utf8)
        let step = TOTP.step(unixTime: time, period: 30)
        #expect(TOTP.code(secret: secret, counter: step, digits: 8) == expected)
        #expect(TOTP.matchingStep(expected, secret: secret, around: step, digits: 8) == step)
    }

    /// RFC 4226 appendix D: HOTP values 0 to 9 of the same secret, 6 digits.
    @Test func rfc4226Vectors() {
        let secret = Array("12345678901234567890".utf8)
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        #expect((0..<10).map { TOTP.code(secret: secret, counter: UInt64($0), digits: 6) } == expected)
    }

    @Test func aCodeMatchesOneStepEitherSideAndNoFurther() {
        let secret = Array("12345678901234567890".utf8)
        let code = TOTP.code(secret: secret, counter: 100, digits: 6)
        #expect(TOTP.matchingStep(code, secret: secret, around: 99, digits: 6) == 100)
        #expect(TOTP.matchingStep(code, secret: secret, around: 101, digits: 6) == 100)
        #expect(TOTP.matchingStep(code, secret: secret, around: 102, digits: 6) == nil)
        #expect(TOTP.matchingStep("12345", secret: secret, around: 100, digits: 6) == nil)
    }
}
