// RFC 9112 section 6.3's framing rules for a request, checked on the header fields libmicrohttpd parsed
// (every field, duplicates kept) before any handler runs: libmicrohttpd 0.9.75 takes the first of two
// `Content-Length`s, lets `Transfer-Encoding` and `Content-Length` coexist, and keeps `Transfer-Encoding :`
// as a field named with a trailing space, each of which lets a proxy and the broker disagree on where a
// request ends (request smuggling).

/// Why a request's framing is ambiguous, or nil when it is not: any field name that is not an RFC 9110
/// token (whitespace before the colon, say), more than one distinct `Content-Length` value or one that is not
/// a plain number, `Content-Length` together with `Transfer-Encoding`, or a `Transfer-Encoding` other than
/// one `chunked`.
func mhdFramingProblem(_ fields: [(name: String, value: String)]) -> String? {
    // Bytes, not Characters: the check runs on every request, and every rule here is about ASCII.
    var length: [UInt8]?
    var lengthsDiffer = false
    var transferEncodings: [String] = []
    for field in fields {
        guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenByte) else {
            return "a header field name is not a token (whitespace before the colon?)"
        }
        if field.name.equalsIgnoringASCIICase("content-length") {
            for item in field.value.utf8.split(separator: 0x2C, omittingEmptySubsequences: false) {
                let digits = trimmingOptionalWhitespace(item)
                guard (1...18).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    return "Content-Length is not a number"
                }
                if let length {
                    if !length.elementsEqual(digits) { lengthsDiffer = true }
                } else {
                    length = Array(digits)
                }
            }
        } else if field.name.equalsIgnoringASCIICase("transfer-encoding") {
            transferEncodings.append(field.value)
        }
    }
    if lengthsDiffer { return "two different Content-Length values" }
    if length != nil && !transferEncodings.isEmpty { return "both Content-Length and Transfer-Encoding" }
    if !transferEncodings.isEmpty {
        let codings = transferEncodings.joined(separator: ",").split(separator: ",")
            .map { $0.trimmingHTTPWhitespace().lowercased() }
        guard codings == ["chunked"] else { return "Transfer-Encoding must be exactly chunked" }
    }
    return nil
}

/// `bytes` without leading and trailing spaces, tabs, CRs and LFs (what ``trimmingHTTPWhitespace()`` trims).
private func trimmingOptionalWhitespace(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
    func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
        let last = bytes.lastIndex(where: { !isWhitespace($0) })
    else { return bytes[bytes.startIndex..<bytes.startIndex] }
    return bytes[first...last]
}

/// RFC 9110's `tchar`: `!#$%&'*+-.^_`|~`, digits and letters.
private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
    case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
    default: return false
    }
}
