import Testing

@testable import BrokerDrivers

@Suite struct ASCIICaseTests {
    @Test(arguments: [
        ("x-request-id", true), ("X-Request-Id", true), ("X-REQUEST-ID", true),
        ("x-request-i", false), ("x-request-idx", false), ("x-request-id ", false), ("", false),
        // Only letters fold: a CR with the case bit set (0x0D | 0x20) is a '-', and must not match one.
        ("x\rrequest-id", false), ("x-request\u{0D}id", false),
        // Not ASCII: the Kelvin sign lowercases to "k" in Unicode, which a header name must not.
        ("x-re\u{212A}uest-id", false),
    ])
    func fieldNamesCompareWithoutASCIICase(_ name: String, _ equal: Bool) {
        #expect(name.equalsIgnoringASCIICase("x-request-id") == equal)
    }

    @Test(arguments: [
        ("Content-Type", "content-type"), ("host", "host"), ("X-REQUEST-ID", "x-request-id"),
        ("\u{212A}ey", "\u{212A}ey"), ("ÄB", "Äb"), ("", ""),
    ])
    func namesLowercaseOnlyTheirASCIILetters(_ name: String, _ lowered: String) {
        #expect(name.asciiLowercased() == lowered)
    }
}
