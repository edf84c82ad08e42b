/// A strict RFC 8259 parser for ``JSONValue``: linear in the input, nesting capped, so a hostile body
/// (deeply nested arrays, huge numbers) costs no more than reading it.
package struct JSONParser {
    /// The deepest nesting accepted; request bodies and token parts need far less.
    package static let maximumDepth = 32

    private let bytes: [UInt8]
    private var index = 0
    /// Where parsing first failed and what was expected there (for config files' messages); nil until then.
    private(set) var failure: (index: Int, expected: String)?

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The value `bytes` hold, or nil when they are not exactly one JSON value.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        var parser = JSONParser(bytes)
        return parser.document()
    }

    /// Where `bytes` stop being one JSON value (the byte offset) and what was expected there; nil when they are.
    static func firstError(in bytes: [UInt8]) -> (offset: Int, expected: String)? {
        var parser = JSONParser(bytes)
        guard parser.document() == nil else { return nil }
        return parser.failure ?? (parser.index, "a JSON value")
    }

    private mutating func document() -> JSONValue? {
        guard let value = value(depth: 0) else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : fail("the end of the document after one JSON value")
    }

    /// Records the first failure (the innermost: outer levels fail after it) and returns nil.
    private mutating func fail(_ expected: String, at position: Int? = nil) -> JSONValue? {
        if failure == nil { failure = (position ?? index, expected) }
        return nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func value(depth: Int) -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return fail("a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return depth < JSONParser.maximumDepth ? object(depth: depth + 1) : fail("at most 32 levels of nesting")
        case UInt8(ascii: "["):
            return depth < JSONParser.maximumDepth ? array(depth: depth + 1) : fail("at most 32 levels of nesting")
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) -> JSONValue? {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, bytes[index..<(index + expected.count)].elementsEqual(expected)
        else { return fail("a JSON value (\(word)?)") }
        index += expected.count
        return value
    }

    private mutating func object(depth: Int) -> JSONValue? {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return fail("a field name in double quotes") }
            guard let key = string() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return fail("':' after the field name") }
            index += 1
            guard let member = value(depth: depth) else { return nil }
            members[key] = member
            skipWhitespace()
            guard index < bytes.count else { return fail("',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                return fail("',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
            skipWhitespace()
            guard index < bytes.count else { return fail("',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            } else {
                return fail("',' or ']'")
            }
        }
    }

    private mutating func string() -> String? {
        guard let text = stringContents() else {
            _ = fail("a closed string of valid UTF-8 without control characters or bad escapes", at: min(index, bytes.count))
            return nil
        }
        return text
    }

    private mutating func stringContents() -> String? {
        index += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        var plain: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = bytes[runStart..<index]
                index += 1
                // A string without escapes (most are) becomes a String straight from the input, with no copy
                // in between.
                if scalars.isEmpty { return String(validating: run, as: UTF8.self) }
                plain.append(contentsOf: run)
                guard let tail = String(validating: plain, as: UTF8.self) else { return nil }
                return String(scalars) + tail
            }
            if byte < 0x20 { return nil }
            if byte == UInt8(ascii: "\\") {
                plain.append(contentsOf: bytes[runStart..<index])
                guard let text = String(validating: plain, as: UTF8.self) else { return nil }
                scalars.append(contentsOf: text.unicodeScalars)
                plain.removeAll(keepingCapacity: true)
                index += 1
                guard index < bytes.count, let scalar = escape() else { return nil }
                scalars.append(scalar)
                runStart = index
                continue
            }
            index += 1
        }
        return nil
    }

    /// The character after a backslash (the index is on it); leaves the index after the escape.
    private mutating func escape() -> Unicode.Scalar? {
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let high = hex4() else { return nil }
            if (0xD800...0xDBFF).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { return nil }
                index += 2
                guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            // NUL has no place in any field the broker reads, and PostgreSQL cannot store it.
            return high == 0 ? nil : Unicode.Scalar(high)
        default: return nil
        }
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    private mutating func number() -> JSONValue? {
        let start = index
        guard let value = numberValue() else {
            let found = bytes[start]
            let isNumberStart = found == UInt8(ascii: "-") || isDigit(found)
            return fail(isNumberStart ? "a number of at most 64 characters" : "a JSON value", at: start)
        }
        return value
    }

    private mutating func numberValue() -> JSONValue? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        guard index - start <= 64 else { return nil }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let integer = Int64(text) { return .int(integer) }
        // A number too large for a Double would read as infinity, which no JSON writer can spell back and no
        // integer conversion survives: such a document is refused.
        guard let double = Double(text), double.isFinite else { return nil }
        return .double(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
