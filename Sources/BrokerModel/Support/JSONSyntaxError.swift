/// Where a document stops being JSON, as a person editing it wants to know: `line 3, column 5: expected a field
/// name in double quotes, found '}' (JSON allows no trailing comma)`.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, in characters (UTF-8 continuation bytes do not count).
    public var column: Int
    /// What the parser expected there.
    public var expected: String
    /// What it found instead (`'}'`, `the end of the file`, `a byte-order mark`), with a hint when one helps.
    public var found: String

    /// Creates an error.
    public init(line: Int, column: Int, expected: String, found: String) {
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found
    }

    /// `line L, column C: expected …, found …`.
    public var description: String { "line \(line), column \(column): expected \(expected), found \(found)" }

    /// The first syntax error in `bytes`, or nil when they hold exactly one JSON value.
    public static func firstError(in bytes: [UInt8]) -> JSONSyntaxError? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return JSONSyntaxError(
                line: 1, column: 1, expected: "a JSON value",
                found: "a byte-order mark (save the file as UTF-8 without a BOM)")
        }
        guard let (offset, expected) = JSONParser.firstError(in: bytes) else { return nil }
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(line: line, column: column, expected: expected, found: describe(bytes, at: offset))
    }

    private static func describe(_ bytes: [UInt8], at offset: Int) -> String {
        guard offset < bytes.count else { return bytes.isEmpty ? "an empty file" : "the end of the file" }
        let byte = bytes[offset]
        if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "#") {
            return "'\(Character(Unicode.Scalar(byte)))' (JSON has no comments)"
        }
        let previous = bytes[..<offset].last { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
        if (byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")) && previous == UInt8(ascii: ",") {
            return "'\(Character(Unicode.Scalar(byte)))' (JSON allows no trailing comma)"
        }
        if byte == UInt8(ascii: "'") { return "\"'\" (JSON strings take double quotes)" }
        if (0x21...0x7E).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { return "whitespace" }
        return "the byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
