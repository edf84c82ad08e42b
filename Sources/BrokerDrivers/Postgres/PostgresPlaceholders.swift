/// Rewrites the port's `?` placeholders into PostgreSQL's `$1 … $n`.
///
/// A `?` inside a string literal (`'…'`, `E'…'` with backslash escapes, `$tag$…$tag$`), a quoted identifier
/// (`"…"`) or a comment (`-- …`, nested `/* … */`) is text, not a placeholder, and is left alone.
enum PostgresPlaceholders {
    /// `sql` with its placeholders numbered, and how many there are.
    static func rewrite(_ sql: String) -> (text: String, count: Int) {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var count = 0
        var index = 0

        /// Copies `bytes[index..<end]` and moves on.
        func copy(to end: Int) {
            let end = min(end, bytes.count)
            output.append(contentsOf: bytes[index..<end])
            index = end
        }

        while index < bytes.count {
            let byte = bytes[index]
            let next: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
            switch byte {
            case UInt8(ascii: "?"):
                count += 1
                output.append(contentsOf: Array("$\(count)".utf8))
                index += 1
            case UInt8(ascii: "'"):
                let escapes = index > 0 && (bytes[index - 1] | 0x20) == UInt8(ascii: "e")
                    && (index < 2 || !isIdentifier(bytes[index - 2]))
                copy(to: endOfQuoted(bytes, from: index, quote: byte, backslashEscapes: escapes))
            case UInt8(ascii: "\""):
                copy(to: endOfQuoted(bytes, from: index, quote: byte, backslashEscapes: false))
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                copy(to: (bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count) + 1)
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                copy(to: endOfBlockComment(bytes, from: index))
            case UInt8(ascii: "$") where index == 0 || !isIdentifier(bytes[index - 1]):
                if let tagEnd = dollarTagEnd(bytes, from: index) {
                    let tag = Array(bytes[index...tagEnd])
                    copy(to: endOfDollarQuoted(bytes, bodyStart: tagEnd + 1, tag: tag))
                } else {
                    copy(to: index + 1)
                }
            default:
                copy(to: index + 1)
            }
        }
        return (String(decoding: output, as: UTF8.self), count)
    }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// The index after the quote closing the literal or identifier opened at `start`; a doubled quote is
    /// part of the text. Unterminated: the end.
    private static func endOfQuoted(_ bytes: [UInt8], from start: Int, quote: UInt8, backslashEscapes: Bool) -> Int {
        var index = start + 1
        while index < bytes.count {
            if backslashEscapes && bytes[index] == UInt8(ascii: "\\") {
                index += 2
            } else if bytes[index] == quote {
                if index + 1 < bytes.count && bytes[index + 1] == quote {
                    index += 2
                } else {
                    return index + 1
                }
            } else {
                index += 1
            }
        }
        return bytes.count
    }

    /// The index after the `*/` closing the (possibly nested) comment opened at `start`.
    private static func endOfBlockComment(_ bytes: [UInt8], from start: Int) -> Int {
        var depth = 0
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "/") && bytes[index + 1] == UInt8(ascii: "*") {
                depth += 1
                index += 2
            } else if bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/") {
                depth -= 1
                index += 2
                if depth == 0 { return index }
            } else {
                index += 1
            }
        }
        return bytes.count
    }

    /// The index of the `$` closing a dollar-quote tag (`$$` or `$name$`) opened at `start`, if it is one.
    private static func dollarTagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "$") {
            let byte = bytes[index]
            let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            // A tag is an identifier without `$`; `$1` (a digit first) is a parameter, not a tag.
            guard isIdentifier(byte), !(index == start + 1 && isDigit) else { return nil }
            index += 1
        }
        return index < bytes.count ? index : nil
    }

    /// The index after the `tag` that closes a dollar-quoted string whose body starts at `bodyStart`.
    private static func endOfDollarQuoted(_ bytes: [UInt8], bodyStart: Int, tag: [UInt8]) -> Int {
        var index = bodyStart
        while index + tag.count <= bytes.count {
            if bytes[index] == UInt8(ascii: "$") && Array(bytes[index..<index + tag.count]) == tag {
                return index + tag.count
            }
            index += 1
        }
        return bytes.count
    }
}
