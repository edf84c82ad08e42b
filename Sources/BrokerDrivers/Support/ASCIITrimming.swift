extension StringProtocol {
    /// The text without leading and trailing spaces, tabs, CRs and LFs: what HTTP calls optional whitespace
    /// around a header's value (plus a line's end). Foundation's `trimmingCharacters(in:)` bridges through
    /// NSString, which costs more than the rest of a header line on the request path.
    func trimmingHTTPWhitespace() -> Substring {
        func isWhitespace(_ character: Character) -> Bool {
            character == " " || character == "\t" || character == "\r" || character == "\n" || character == "\r\n"
        }
        let text = self[...]
        guard let first = text.firstIndex(where: { !isWhitespace($0) }),
            let last = text.lastIndex(where: { !isWhitespace($0) })
        else { return Substring() }
        return Substring(text[first...last])
    }
}
