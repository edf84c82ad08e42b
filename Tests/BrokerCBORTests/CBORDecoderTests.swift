import BrokerCBOR
import Testing

/// The hex string `text` as bytes.
private func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}

@Suite("CBOR through libcbor")
struct CBORDecoderTests {
    /// RFC 8949 appendix A examples.
    static let examples: [(String, CBORValue)] = [
        ("00", .unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1bffffffffffffffff", .unsigned(UInt64.max)), ("20", .integer(-1)), ("3863", .integer(-100)),
        ("3bffffffffffffffff", .negative(UInt64.max)), ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62c3bc", .text("ü")),
        ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        (
            "8301820203820405",
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
        ),
        ("a0", .map([])),
        ("a201020304", .map([CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), .unsigned(4))])),
        (
            "a26161016162820203",
            .map([
                CBORMapEntry(.text("a"), .unsigned(1)), CBORMapEntry(.text("b"), .array([.unsigned(2), .unsigned(3)])),
            ])
        ),
        ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))), ("f4", .bool(false)), ("f5", .bool(true)),
        ("f6", .null), ("f7", .undefined), ("f93c00", .float(1.0)), ("fa47c35000", .float(100_000.0)),
        ("fb3ff199999999999a", .float(1.1)),
    ]

    @Test(arguments: examples)
    func decodesTheRFCExamples(encoded: String, expected: CBORValue) throws {
        #expect(try CBORDecoder.decode(hex(encoded)) == expected)
    }

    @Test(arguments: examples)
    func encodingRoundTrips(encoded: String, expected: CBORValue) throws {
        #expect(try CBORDecoder.decode(expected.encoded()) == expected)
    }

    @Test func integersAndLengthsAreEncodedShortest() {
        #expect(CBORValue.unsigned(24).encoded() == hex("1818"))
        #expect(CBORValue.integer(-7).encoded() == hex("26"))
        #expect(CBORValue.integer(-257).encoded() == hex("390100"))
        #expect(CBORValue.bytes([1, 2, 3, 4]).encoded() == hex("4401020304"))
    }

    @Test func decodeFirstReportsWhatItConsumed() throws {
        let bytes = hex("a201020304") + [0xde, 0xad]
        let (value, consumed) = try CBORDecoder.decodeFirst(bytes[...])
        #expect(consumed == 5)
        #expect(value[integer: 3] == .unsigned(4))
        #expect(value[integer: 5] == nil)
    }

    @Test func accessorsReadOnlyTheirKind() {
        #expect(CBORValue.integer(-7).integer == -7)
        #expect(CBORValue.negative(UInt64.max).integer == nil)
        #expect(CBORValue.text("x").bytes == nil)
        #expect(CBORValue.bytes([1]).text == nil)
        #expect(CBORValue.array([]).entries == nil)
        #expect(CBORValue.map([CBORMapEntry(.text("fmt"), .text("none"))])[text: "fmt"] == .text("none"))
    }

    static let refusals: [(String, CBORError.Code)] = [
        ("", .truncated), ("19e8", .truncated), ("830102", .truncated), ("4401", .truncated),
        ("0000", .trailingBytes), ("1c", .malformed), ("9fff", .unsupported), ("5f4101ff", .unsupported),
        ("7f6161ff", .unsupported), ("bf0102ff", .unsupported), ("62c328", .unsupported),
        ("a201020103", .unsupported), ("9affffffff00", .tooLarge), ("ba7fffffff", .tooLarge),
        (String(repeating: "81", count: 17) + "00", .tooLarge),
    ]

    @Test(arguments: refusals)
    func refuses(encoded: String, code: CBORError.Code) {
        #expect(throws: CBORError.self) { try CBORDecoder.decode(hex(encoded)) }
        do {
            _ = try CBORDecoder.decode(hex(encoded))
        } catch {
            #expect(error.code == code)
        }
    }

    @Test func sixteenLevelsAreWithinTheLimit() throws {
        let value = try CBORDecoder.decode(hex(String(repeating: "81", count: 16) + "00"))
        var depth = 0
        var current = value
        while case .array(let items) = current, let first = items.first {
            depth += 1
            current = first
        }
        #expect(depth == 16)
        #expect(current == .unsigned(0))
    }

    @Test func limitsOnBytesAndItemsHold() {
        let limits = CBORLimits(maximumBytes: 8, maximumDepth: 4, maximumItems: 3)
        #expect(throws: CBORError(.tooLarge, "the input is 9 bytes, above 8")) {
            try CBORDecoder.decode(hex("1bffffffffffffffff"), limits: limits)
        }
        #expect(throws: CBORError(.tooLarge, "more than 3 items")) {
            try CBORDecoder.decode(hex("83010203"), limits: limits)
        }
        #expect(throws: Never.self) { try CBORDecoder.decode(hex("820102"), limits: limits) }
    }
}
