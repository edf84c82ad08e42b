import Testing

@testable import BrokerDrivers

@Suite struct ASCIITrimmingTests {
    @Test(arguments: [
        (" 12 \r\n", "12"), ("\t application/json\t", "application/json"), ("a b", "a b"), ("", ""), (" \t\r\n", ""),
        ("x", "x"), ("  max-age=300, public ", "max-age=300, public"), ("\u{A0}é\u{A0}", "\u{A0}é\u{A0}"),
    ])
    func trimsOnlyHTTPWhitespaceAtBothEnds(input: String, expected: String) {
        #expect(input.trimmingHTTPWhitespace() == Substring(expected))
        #expect(input[...].trimmingHTTPWhitespace() == Substring(expected))
    }
}
