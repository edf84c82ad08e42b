/// Base32 (RFC 4648 section 6), the encoding authenticator apps read TOTP secrets in.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in base32, upper case; `=`-padded to a multiple of eight characters when `padded`.
    public static func encode(_ bytes: [UInt8], padded: Bool = true) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 4) / 5 * 8)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        if padded { while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil on bad input. Accepts upper or lower case, with or without `=` padding,
    /// and ignores spaces (as people type a secret shown in groups); refuses any other character, a length no
    /// encoding can have, and non-zero unused trailing bits.
    public static func decode(_ text: String) -> [UInt8]? {
        var symbols = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        while symbols.last == UInt8(ascii: "=") { symbols.removeLast() }
        // 1, 3 and 6 leftover symbols encode no whole byte.
        guard ![1, 3, 6].contains(symbols.count % 8) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(symbols.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            guard let value = Self.value(of: symbol) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    /// The value of one symbol (either case), or nil.
    private static func value(of symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): symbol - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): symbol - UInt8(ascii: "a")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): symbol - UInt8(ascii: "2") + 26
        default: nil
        }
    }
}
