import BrokerCore
import BrokerModel
/// One streaming pass over a whole export file: checks that it is well-formed JSON (RFC 8259, UTF-8,
/// nesting bounded) and notes the byte range of each element of the top-level `users` array, so each user
/// can later be parsed on its own instead of the whole file becoming one tree. A problem is reported with
/// its line and column. Memory is the list of ranges; time is linear in the file.
struct FirebaseExportScanner: ~Copyable {
    /// The deepest nesting accepted: the root object and the users array, then what ``JSONParser`` allows.
    static let maximumDepth = JSONParser.maximumDepth + 2
    /// The most users one file may hold.
    static let maximumUsers = 10_000_000

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var users: [Range<Int>]?

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The byte ranges of the `users` elements of `bytes`, or ``FirebaseExportError``.
    static func userRanges(in bytes: UnsafeRawBufferPointer) throws -> [Range<Int>] {
        var scanner = FirebaseExportScanner(bytes)
        return try scanner.scanDocument()
    }

    private mutating func scanDocument() throws -> [Range<Int>] {
        // A UTF-8 byte order mark, as some editors write, is skipped.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3; lineStart = 3 }
        skipWhitespace()
        guard index < bytes.count else { throw fail("the file is empty") }
        guard bytes[index] == UInt8(ascii: "{") else { throw fail("expected the export's top-level object") }
        try object(depth: 1, isRoot: true)
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected content after the top-level object") }
        guard let users else { throw FirebaseExportError(.notAnExport, "no top-level \"users\" array") }
        return users
    }

    private func fail(_ reason: String) -> FirebaseExportError {
        let offset = min(index, bytes.count)
        // The column counts characters: UTF-8 continuation bytes are not new columns.
        var column = 1
        var position = lineStart
        while position < offset {
            if bytes[position] & 0xC0 != 0x80 { column += 1 }
            position += 1
        }
        return FirebaseExportError(.malformedFile, reason, line: line, column: column)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of file") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object(depth: depth + 1, isRoot: false)
        case UInt8(ascii: "["): try array(depth: depth + 1, collectingUsers: false)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of file") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw fail("unexpected character")
        }
        index += count
    }

    private mutating func object(depth: Int, isRoot: Bool) throws {
        guard depth <= Self.maximumDepth else { throw fail("nested too deeply") }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of file") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            if isRoot, isUsers(key) {
                guard users == nil else { throw fail("a second \"users\" member") }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else {
                    throw fail("\"users\" must be an array")
                }
                try array(depth: depth + 1, collectingUsers: true)
            } else {
                try value(depth: depth)
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of file") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    private func isUsers(_ key: Range<Int>) -> Bool {
        let name: StaticString = "users"
        guard key.count == name.utf8CodeUnitCount else { return false }
        return key.indices.allSatisfy { bytes[$0] == name.utf8Start[$0 - key.lowerBound] }
    }

    private mutating func array(depth: Int, collectingUsers: Bool) throws {
        guard depth <= Self.maximumDepth else { throw fail("nested too deeply") }
        index += 1
        var ranges: [Range<Int>] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            if collectingUsers { users = ranges }
            return
        }
        while true {
            skipWhitespace()
            let start = index
            try value(depth: depth)
            if collectingUsers {
                guard ranges.count < Self.maximumUsers else {
                    throw FirebaseExportError(.tooLarge, "more than \(Self.maximumUsers) users")
                }
                ranges.append(start..<index)
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of file") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                if collectingUsers { users = ranges }
                return
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    /// Scans a string (the index is on its opening quote) and returns the range of its raw content.
    private mutating func string() throws -> Range<Int> {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return start..<(index - 1)
            case UInt8(ascii: "\\"):
                try escape()
            case 0..<0x20:
                throw fail("control character in a string")
            case 0x80...:
                try utf8Sequence()
            default:
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    private mutating func escape() throws {
        index += 1
        guard index < bytes.count else { throw fail("unterminated string") }
        switch bytes[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try hex4()
            switch unit {
            case 0: throw fail("\\u0000 in a string")
            case 0xDC00...0xDFFF: throw fail("unpaired surrogate escape")
            case 0xD800...0xDBFF:
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw fail("unpaired surrogate escape") }
                index += 2
                guard (0xDC00...0xDFFF).contains(try hex4()) else { throw fail("unpaired surrogate escape") }
            default: break
            }
        default:
            throw fail("invalid escape in a string")
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("unterminated string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// One multi-byte UTF-8 sequence (the index is on its lead byte): no overlong forms, surrogates or
    /// code points above U+10FFFF.
    private mutating func utf8Sequence() throws {
        let lead = bytes[index]
        let length: Int
        var lowest: UInt8 = 0x80
        var highest: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; highest = 0x9F
        case 0xF0: length = 4; lowest = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; highest = 0x8F
        default: throw fail("invalid UTF-8")
        }
        guard index + length <= bytes.count else { throw fail("invalid UTF-8") }
        guard (lowest...highest).contains(bytes[index + 1]) else { throw fail("invalid UTF-8") }
        for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
            throw fail("invalid UTF-8")
        }
        index += length
    }

    private mutating func number() throws {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a value") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("digits expected after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("digits expected in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        guard index - start <= 64 else {
            index = start
            throw fail("number longer than 64 characters")
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
