/// The shared engine behind `Base64` and `Base64URL` (RFC 4648 sections 4 and 5): one alphabet, strict
/// decoding.
struct Base64Codec: Sendable {
    /// The 64 symbols, in value order.
    let symbols: [UInt8]
    /// For each byte, its 6-bit value, or -1 when it is not in the alphabet.
    let values: [Int8]

    /// RFC 4648 section 4: `+` and `/`.
    static let standard = Base64Codec(extra: "+/")
    /// RFC 4648 section 5: `-` and `_`.
    static let url = Base64Codec(extra: "-_")

    private init(extra: String) {
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8) + Array(extra.utf8)
        var values = [Int8](repeating: -1, count: 256)
        for (index, symbol) in symbols.enumerated() {
            values[Int(symbol)] = Int8(index)
        }
        self.symbols = symbols
        self.values = values
    }

    /// `bytes` encoded, with `=` padding when `padded`.
    func encode(_ bytes: [UInt8], padded: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(symbols[Int(chunk >> 18 & 63)])
            out.append(symbols[Int(chunk >> 12 & 63)])
            out.append(symbols[Int(chunk >> 6 & 63)])
            out.append(symbols[Int(chunk & 63)])
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let chunk = UInt32(bytes[index]) << 16
            out.append(symbols[Int(chunk >> 18 & 63)])
            out.append(symbols[Int(chunk >> 12 & 63)])
            if padded { out.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")]) }
        case 2:
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out.append(symbols[Int(chunk >> 18 & 63)])
            out.append(symbols[Int(chunk >> 12 & 63)])
            out.append(symbols[Int(chunk >> 6 & 63)])
            if padded { out.append(UInt8(ascii: "=")) }
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil when it is not valid in this alphabet.
    ///
    /// Padding is optional, but when present it must be complete (`"QQ=="`, not `"QQ="`) and only at the
    /// end. Unused trailing bits must be zero, so every byte string has exactly one accepted encoding.
    /// When `skippingWhitespace`, ASCII spaces, tabs and line breaks are ignored anywhere.
    func decode(_ text: String, skippingWhitespace: Bool) -> [UInt8]? {
        var sextets: [UInt8] = []
        sextets.reserveCapacity(text.utf8.count)
        var padding = 0
        for byte in text.utf8 {
            if skippingWhitespace, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                continue
            }
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            let value = values[Int(byte)]
            guard value >= 0, padding == 0 else { return nil }
            sextets.append(UInt8(value))
        }
        let remainder = sextets.count % 4
        guard remainder != 1 else { return nil }
        if padding > 0 {
            guard remainder != 0, padding == 4 - remainder else { return nil }
        }

        var out: [UInt8] = []
        out.reserveCapacity(sextets.count * 3 / 4)
        var index = 0
        while index + 4 <= sextets.count {
            let chunk = UInt32(sextets[index]) << 18 | UInt32(sextets[index + 1]) << 12
                | UInt32(sextets[index + 2]) << 6 | UInt32(sextets[index + 3])
            out.append(UInt8(chunk >> 16 & 0xFF))
            out.append(UInt8(chunk >> 8 & 0xFF))
            out.append(UInt8(chunk & 0xFF))
            index += 4
        }
        switch remainder {
        case 2:
            guard sextets[index + 1] & 0x0F == 0 else { return nil }
            out.append(sextets[index] << 2 | sextets[index + 1] >> 4)
        case 3:
            guard sextets[index + 2] & 0x03 == 0 else { return nil }
            out.append(sextets[index] << 2 | sextets[index + 1] >> 4)
            out.append(sextets[index + 1] << 4 | sextets[index + 2] >> 2)
        default:
            break
        }
        return out
    }
}
