extension String {
    /// Whether this text equals `lowercase` (which must be lowercase ASCII) with ASCII letters compared
    /// without case: how HTTP compares field names. Allocates nothing, unlike `lowercased() == name` on
    /// every field of every request.
    func equalsIgnoringASCIICase(_ lowercase: StaticString) -> Bool {
        let other = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard utf8.count == other.count else { return false }
        return zip(utf8, other).allSatisfy { mine, theirs in
            mine == theirs || ((0x41...0x5A).contains(mine) && mine | 0x20 == theirs)
        }
    }

    /// The text with ASCII letters A to Z lowercased and every other byte kept: HTTP field names, which the
    /// framing check has already limited to ASCII token characters. Returns itself when nothing changes.
    func asciiLowercased() -> String {
        guard utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return self }
        return String(decoding: utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
