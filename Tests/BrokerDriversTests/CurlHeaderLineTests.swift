import Testing

@testable import BrokerDrivers

/// How a line of a response head, as libcurl hands it over, becomes a header field.
@Suite struct CurlHeaderLineTests {
    static func parse(_ bytes: [UInt8]) -> CurlTransfer.HeaderLine? {
        bytes.withUnsafeBytes { CurlTransfer.parseHeaderLine($0) }
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\n", CurlTransfer.HeaderLine.statusLine),
        ("HTTP/2 404\r\n", .statusLine),
        ("Content-Type: application/json;charset=UTF-8\r\n", .field(name: "content-type", value: "application/json;charset=UTF-8")),
        ("X-Empty:\r\n", .field(name: "x-empty", value: "")),
        ("Cache-Control:  \t max-age=300, public \t\r\n", .field(name: "cache-control", value: "max-age=300, public")),
        ("Location: https://example.com/a:b?c=d:e\r\n", .field(name: "location", value: "https://example.com/a:b?c=d:e")),
        ("WWW-Authenticate: Bearer error=\"invalid_token\"\n", .field(name: "www-authenticate", value: "Bearer error=\"invalid_token\"")),
        ("X-Name: café\r\n", .field(name: "x-name", value: "café")),
    ])
    func linesBecomeFieldsOrAStatusLine(line: String, expected: CurlTransfer.HeaderLine) {
        #expect(Self.parse(Array(line.utf8)) == expected)
    }

    @Test(arguments: ["\r\n", "", "no colon here\r\n", ": no name\r\n", " \t: blank name\r\n"])
    func otherLinesAreIgnored(line: String) {
        #expect(Self.parse(Array(line.utf8)) == nil)
    }

    @Test func aValueThatIsNotUTF8IsReadAsLatin1() {
        // "X-Name: caf" + 0xE9 (é in Latin-1, invalid alone in UTF-8) + CRLF.
        let line: [UInt8] = Array("X-Name: caf".utf8) + [0xE9, 0x0D, 0x0A]
        #expect(Self.parse(line) == .field(name: "x-name", value: "café"))
    }
}
