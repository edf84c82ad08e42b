import Foundation

/// A mail as an SMTP sink stored it (RFC 5322 text), read back for tests and `broker demo`: its top-level
/// headers and its `text/plain` part, decoded from quoted-printable.
public struct CaughtMail: Sendable {
    /// The top-level headers, names lower-cased (the first of each name; folded lines joined).
    public let headers: [String: String]
    /// The decoded `text/plain` part (or the whole body when the mail is not multipart); empty when none.
    public let text: String

    /// Parses `raw`. Bounded by its lines: every loop walks the lines once.
    public init(raw: String) {
        let lines = raw.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        var headers: [String: String] = [:]
        var index = 0
        var lastName: String?
        while index < lines.count, !lines[index].isEmpty {
            let line = lines[index]
            if line.first == " " || line.first == "\t", let name = lastName {
                headers[name, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                if headers[name] == nil {
                    headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    lastName = name
                } else {
                    lastName = nil
                }
            }
            index += 1
        }
        self.headers = headers
        let body = Array(lines[min(index + 1, lines.count)...])
        guard headers["content-type"]?.lowercased().hasPrefix("multipart/") == true else {
            text = Self.decode(
                body, quotedPrintable: headers["content-transfer-encoding"]?.lowercased() == "quoted-printable")
            return
        }
        // The first part whose headers say text/plain, up to the next boundary line.
        var partHeaders: [String] = []
        var inHeaders = false
        var content: [String]?
        var collected: [String] = []
        for line in body {
            if line.hasPrefix("--") {
                if content != nil { break }
                inHeaders = true
                partHeaders = []
                continue
            }
            if inHeaders {
                if line.isEmpty {
                    inHeaders = false
                    if partHeaders.contains(where: { $0.lowercased().hasPrefix("content-type: text/plain") }) {
                        content = []
                    }
                } else {
                    partHeaders.append(line)
                }
                continue
            }
            if content != nil { collected.append(line) }
        }
        let quoted = partHeaders.contains { $0.lowercased() == "content-transfer-encoding: quoted-printable" }
        text = content == nil ? "" : Self.decode(collected, quotedPrintable: quoted)
    }

    /// The lines as text, undoing quoted-printable (soft line breaks and `=XX`) when `quotedPrintable`.
    static func decode(_ lines: [String], quotedPrintable: Bool) -> String {
        guard quotedPrintable else { return lines.joined(separator: "\n") }
        var bytes: [UInt8] = []
        for line in lines {
            var utf8 = Array(line.utf8)
            let soft = utf8.last == UInt8(ascii: "=")
            if soft { utf8.removeLast() }
            var position = 0
            while position < utf8.count {
                if utf8[position] == UInt8(ascii: "="), position + 2 < utf8.count,
                    let value = UInt8(String(decoding: utf8[position + 1...position + 2], as: UTF8.self), radix: 16)
                {
                    bytes.append(value)
                    position += 3
                } else {
                    bytes.append(utf8[position])
                    position += 1
                }
            }
            if !soft { bytes.append(0x0A) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The first `http(s)://…/auth/action?…` link in the text part.
    public var actionLink: String? {
        text.split(whereSeparator: \.isWhitespace).first { $0.contains("/auth/action?") }.map(String.init)
    }
}
