import CCBOR

extension CBORValue {
    /// The item in CBOR, each head written by libcbor's encoders (integers and lengths in their shortest form, as
    /// CTAP2's canonical encoding has them; map entries keep their order; floats as doubles). Test authenticators
    /// and the fuzz target's round trip use it; the broker itself only reads CBOR.
    public func encoded() -> [UInt8] {
        var output: [UInt8] = []
        append(to: &output)
        return output
    }

    private func append(to output: inout [UInt8]) {
        switch self {
        case .unsigned(let value):
            output += Self.head { cbor_encode_uint(value, $0, $1) }
        case .negative(let value):
            output += Self.head { cbor_encode_negint(value, $0, $1) }
        case .bytes(let bytes):
            output += Self.head { cbor_encode_bytestring_start(bytes.count, $0, $1) }
            output += bytes
        case .text(let text):
            let bytes = Array(text.utf8)
            output += Self.head { cbor_encode_string_start(bytes.count, $0, $1) }
            output += bytes
        case .array(let items):
            output += Self.head { cbor_encode_array_start(items.count, $0, $1) }
            for item in items { item.append(to: &output) }
        case .map(let entries):
            output += Self.head { cbor_encode_map_start(entries.count, $0, $1) }
            for entry in entries {
                entry.key.append(to: &output)
                entry.value.append(to: &output)
            }
        case .tagged(let tag, let item):
            output += Self.head { cbor_encode_tag(tag, $0, $1) }
            item.append(to: &output)
        case .bool(let value):
            output += Self.head { cbor_encode_bool(value, $0, $1) }
        case .null:
            output += Self.head { cbor_encode_null($0, $1) }
        case .undefined:
            output += Self.head { cbor_encode_undef($0, $1) }
        case .float(let value):
            output += Self.head { cbor_encode_double(value, $0, $1) }
        }
    }

    /// The bytes one libcbor head encoder writes (a head is at most 9 bytes).
    private static func head(_ encode: (UnsafeMutablePointer<UInt8>, Int) -> Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 9)
        let written = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
            guard let base = pointer.baseAddress else { return 0 }
            return encode(base, pointer.count)
        }
        return Array(buffer.prefix(written))
    }
}
