import BrokerCore
import BrokerModel
import Foundation
import Testing

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() {
        let text = #" {"a": [1, -2, 3.5, 1e3, true, false, null], "s": "x\"y\\z\/\n\u00e9\ud83d\ude00", "o": {}, "e": [], "big": 9007199254740993} "#
        let value = JSONValue.parse(Array(text.utf8))
        #expect(value?["a"] == [1, -2, .double(3.5), .double(1000), true, false, .null])
        #expect(value?["s"]?.stringValue == "x\"y\\z/\né😀")
        #expect(value?["o"] == .object([:]))
        #expect(value?["e"] == .array([]))
        #expect(value?["big"]?.intValue == 9_007_199_254_740_993)
        #expect(JSONValue.parse(Array("\"서연\"".utf8)) == "서연")
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{a:1}", "'x'", "01", "1.", ".5", "-", "+1", "1e", "tru", "nul",
        "\"unterminated", "\"bad \\x escape\"", "\"\u{01}\"", "[1] 2", "{\"a\" 1}", "\"\\ud800\"", "NaN", "Infinity", "\"a\\u0000b\"",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(JSONValue.parse(Array(text.utf8)) == nil)
    }

    /// Found by the `json` fuzz target: `1e2222` read as infinity, serialized as `null`.
    @Test(arguments: ["1e2222", "-1e400", "[1.7976931348623159e308]", "{\"exp\": 1e999}"])
    func refusesNumbersBeyondDouble(_ text: String) {
        #expect(JSONValue.parse(Array(text.utf8)) == nil)
    }

    @Test func keepsTheLargestAndSmallestDoubles() {
        #expect(JSONValue.parse(Array("1.7976931348623157e308".utf8)) == .double(.greatestFiniteMagnitude))
        #expect(JSONValue.parse(Array("1e-400".utf8)) == .double(0))
    }

    @Test func refusesInvalidUTF8() {
        #expect(JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) == nil)
    }

    @Test func capsNestingSoHostileBodiesCostNothing() {
        let fine = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(JSONValue.parse(Array(fine.utf8)) != nil)
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(JSONValue.parse(Array(deep.utf8)) == nil)
        // 64 KiB of nesting is refused at once (the old decoder spent minutes on this).
        let hostile = String(repeating: "[", count: 65_536)
        #expect(JSONValue.parse(Array(hostile.utf8)) == nil)
    }

    @Test func serializesCompactlyWithSortedKeys() {
        let value: JSONValue = ["b": [1, .double(2.5), .double(3), true, .null], "a": "x/y\"z\\\n\u{1}é"]
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"a":"x/y\"z\\\n\u0001é","b":[1,2.5,3,true,null]}"#)
    }

    @Test func roundTripsThroughSerialization() {
        let value: JSONValue = ["k": ["n": 1, "d": .double(0.25), "s": "a\"b", "u": "é", "z": .null, "b": false]]
        #expect(JSONValue.parse(value.serialized()) == value)
    }

    @Test func anyStringRoundTripsWithItsEscapesWhereverTheyFall() {
        // Escapes at the start, the end and side by side, among long plain runs and multi-byte characters. (NUL
        // is left out: it is written as \u0000, but the parser refuses it on purpose.)
        #expect(JSONValue.string("a\u{0}b").serialized() == Array(#""a\u0000b""#.utf8))
        let pieces = ["\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}", "\u{7F}", "é", "한", "😀", "/", "plain", String(repeating: "x", count: 700)]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let serialized = JSONValue.string(text).serialized()
            #expect(JSONValue.parse(serialized) == .string(text), "\(text.debugDescription)")
            #expect(!serialized.dropFirst().dropLast().contains { $0 < 0x20 || $0 == 0x7F }, "raw control byte")
        }
    }
}
