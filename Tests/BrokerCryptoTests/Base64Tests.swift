import BrokerCrypto
import Testing

@Suite struct Base64Tests {
    /// RFC 4648 section 10, without padding for base64url.
    @Test(arguments: [
        ("", "", ""), ("f", "Zg", "Zg=="), ("fo", "Zm8", "Zm8="), ("foo", "Zm9v", "Zm9v"),
        ("foob", "Zm9vYg", "Zm9vYg=="), ("fooba", "Zm9vYmE", "Zm9vYmE="), ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, url: String, standard: String) {
        let bytes = Array(plain.utf8)
        #expect(Base64URL.encode(bytes) == url)
        #expect(Base64URL.decode(url) == bytes)
        #expect(Base64URL.decode(standard) == bytes)
        #expect(Base64.encode(bytes) == standard)
        #expect(Base64.decode(standard) == bytes)
        #expect(Base64.decode(url) == bytes)
    }

    @Test func alphabetsDifferInTheLastTwoSymbols() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64URL.encode(bytes) == "-_-_")
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64URL.decode("-_-_") == bytes)
        #expect(Base64.decode("+/+/") == bytes)
        #expect(Base64.decode("-_-_") == nil)
    }

    @Test(arguments: 0..<40)
    func roundTripsRandomBytes(length: Int) {
        let bytes = SecureRandom.bytes(length)
        let url = Base64URL.encode(bytes)
        #expect(!url.contains("="))
        #expect(!url.contains("+") && !url.contains("/"))
        #expect(Base64URL.decode(url) == bytes)
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
    }

    @Test(arguments: [
        "ab+c",  // standard-alphabet character
        "ab/c",  // standard-alphabet character
        "a",  // no encoding has length 1 mod 4
        "abcde",  // length 1 mod 4
        "Zg=",  // partial padding
        "Zg===",  // too much padding
        "Z=g=",  // padding in the middle
        "=Zg",  // padding first
        "Zm9v=",  // padding where none is due
        "Zh",  // non-zero unused bits (canonical is "Zg")
        "Zm9=",  // non-zero unused bits (canonical is "Zm8=")
        "ab cd",  // whitespace
        "ab\ncd",  // line break
        "h\u{E9}llo",  // non-ASCII
        "!!!!",  // garbage
        "eyJhbGciOiJSUzI1NiJ9.e30",  // a dot: a whole JWT is not one base64url value
    ])
    func base64URLRefuses(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func base64SkipsWhitespaceAsInPEM() {
        #expect(Base64.decode("Zm9v\nYmFy\r\n") == Array("foobar".utf8))
        #expect(Base64.decode(" Zm8= ") == Array("fo".utf8))
    }

    @Test(arguments: ["Zm9v!", "Zg=", "Zm9v=Zm9v", "a", "Zh"])
    func base64Refuses(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
