import BrokerCrypto
public import Foundation

/// One mail: a text and an HTML alternative of the same content, in UTF-8.
public struct MailMessage: Sendable, Equatable {
    /// The sender's address (`mail.from`), optionally with a display name: `Example <no-reply@example.com>`.
    public var from: String
    /// The recipient's address.
    public var to: String
    /// The subject (any Unicode; encoded as RFC 2047 when not ASCII).
    public var subject: String
    /// The plain-text body.
    public var text: String
    /// The HTML body.
    public var html: String

    /// Creates a mail.
    public init(from: String, to: String, subject: String, text: String, html: String) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// The bare address of `from` (what SMTP's `MAIL FROM` takes): the part in angle brackets, if any.
    public var fromAddress: String { Self.address(in: from) }

    /// The bare address of a `Name <address>` header value.
    static func address(in value: String) -> String {
        if let open = value.lastIndex(of: "<"), let close = value.lastIndex(of: ">"), open < close {
            return String(value[value.index(after: open)..<close])
        }
        return value.trimmingCharacters(in: .whitespaces)
    }

    /// Whether `address` is a plausible single mailbox (`local@domain`), with nothing that could end a header
    /// or an SMTP command (no line breaks, spaces, angle brackets or commas).
    public static func isValidAddress(_ address: String) -> Bool {
        guard address.utf8.count <= 254, let at = address.lastIndex(of: "@") else { return false }
        let local = address[..<at]
        let domain = address[address.index(after: at)...]
        guard !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty, domain.contains(".") || domain == "localhost"
        else { return false }
        let forbidden: Set<UInt8> = [0x20, 0x09, 0x0D, 0x0A, 0x00, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ","), UInt8(ascii: ";")]
        return !address.utf8.contains { forbidden.contains($0) || $0 < 0x20 || $0 == 0x7F }
    }

    /// The RFC 5322 message: headers (`Date`, `From`, `To`, RFC 2047 `Subject`, `Message-ID`, `MIME-Version`)
    /// and a `multipart/alternative` body with a quoted-printable text part and a base64 HTML part, CRLF line
    /// ends. `messageIDDomain` is the domain of the `Message-ID` (the sender's by default).
    public func rendered(date: Date, messageIDDomain: String? = nil) -> [UInt8] {
        let domain = messageIDDomain ?? fromAddress.split(separator: "@").last.map(String.init) ?? "localhost"
        let random = Hex.encode(SecureRandom.bytes(16))
        let boundary = "=_broker_" + Hex.encode(SecureRandom.bytes(12))
        var lines = [
            "Date: " + Self.rfc5322Date(date),
            "From: " + Self.headerValue(from),
            "To: " + Self.headerValue(to),
            "Subject: " + Self.encodedWord(subject),
            "Message-ID: <\(random)@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
            "--\(boundary)",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            Self.quotedPrintable(text),
            "--\(boundary)",
            "Content-Type: text/html; charset=UTF-8",
            "Content-Transfer-Encoding: base64",
            "",
        ]
        lines += Self.base64Lines(Array(html.utf8))
        lines.append("--\(boundary)--")
        lines.append("")
        return Array(lines.joined(separator: "\r\n").utf8)
    }

    // MARK: - Encodings

    /// A header value with line breaks removed (header injection); a non-ASCII display name is encoded.
    static func headerValue(_ value: String) -> String {
        let flat = value.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        guard !flat.utf8.allSatisfy({ $0 < 0x80 }), let open = flat.lastIndex(of: "<") else { return flat }
        let name = flat[..<open].trimmingCharacters(in: .whitespaces)
        return encodedWord(name) + " " + flat[open...]
    }

    /// `text` as is when it is printable ASCII, else RFC 2047 encoded words (`=?UTF-8?B?...?=`), each at
    /// most 75 characters and never splitting a character, folded onto continuation lines.
    static func encodedWord(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flat.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) && flat.utf8.count <= 900 { return flat }
        // 45 bytes of UTF-8 -> 60 base64 characters, + 12 of `=?UTF-8?B?` and `?=`: 72 <= 75.
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in flat {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?" + Base64.encode(chunk) + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Base64.encode(chunk) + "?=") }
        return words.joined(separator: "\r\n ")
    }

    /// Quoted-printable (RFC 2045 6.7) of `text`'s UTF-8, CRLF line ends, soft breaks keeping lines at most
    /// 76 characters. (A line starting with a dot is safe: libcurl dot-stuffs SMTP uploads.)
    static func quotedPrintable(_ text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var out: [String] = []
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Array(line.utf8)
            var encoded = ""
            var current = ""
            for (index, byte) in bytes.enumerated() {
                let isLast = index == bytes.count - 1
                let piece: String
                if (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || ((byte == 0x20 || byte == 0x09) && !isLast) {
                    piece = String(UnicodeScalar(byte))
                } else {
                    piece = "=" + Hex.encode([byte]).uppercased()
                }
                if current.count + piece.count > 75 {
                    encoded += current + "=\r\n"
                    current = ""
                }
                current += piece
            }
            encoded += current
            out.append(encoded)
        }
        return out.joined(separator: "\r\n")
    }

    /// `bytes` in base64, 76 characters a line.
    static func base64Lines(_ bytes: [UInt8]) -> [String] {
        let text = Base64.encode(bytes)
        var lines: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            let end = text.index(index, offsetBy: 76, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(String(text[index..<end]))
            index = end
        }
        return lines
    }

    /// `Tue, 01 Dec 2026 11:17:00 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
