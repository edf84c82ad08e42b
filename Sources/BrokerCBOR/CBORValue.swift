/// One CBOR (RFC 8949) data item, as `CBORDecoder` reads it through libcbor and `encoded()` writes it back.
///
/// Only what WebAuthn's attestation objects and COSE keys use is distinguished; indefinite-length items are
/// refused by the decoder (CTAP2's canonical encoding never has them), so every item here has a definite length.
public indirect enum CBORValue: Sendable, Hashable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1) holding `n`, whose value is `-1 - n` (so `.negative(6)` is -7).
    case negative(UInt64)
    /// A byte string (major type 2).
    case bytes([UInt8])
    /// A UTF-8 text string (major type 3).
    case text(String)
    /// An array (major type 4).
    case array([CBORValue])
    /// A map (major type 5), its entries in the order they were encoded; keys are unique.
    case map([CBORMapEntry])
    /// A tagged item (major type 6).
    case tagged(UInt64, CBORValue)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// `undefined`.
    case undefined
    /// A half, single or double precision float.
    case float(Double)

    /// The integer `value` as a CBOR integer, unsigned or negative.
    public static func integer(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The value of an integer item that fits an `Int64`; nil for anything else.
    public var integer: Int64? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): return value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: return nil
        }
    }

    /// The bytes of a byte string; nil for anything else.
    public var bytes: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    /// The text of a text string; nil for anything else.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The entries of a map; nil for anything else.
    public var entries: [CBORMapEntry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// In a map, the value under `key`; nil when this is not a map or has no such key.
    public subscript(key: CBORValue) -> CBORValue? {
        entries?.first(where: { $0.key == key })?.value
    }

    /// In a map, the value under the text key `key`.
    public subscript(text key: String) -> CBORValue? { self[.text(key)] }

    /// In a map, the value under the integer key `key` (COSE keys use these).
    public subscript(integer key: Int64) -> CBORValue? { self[.integer(key)] }
}

/// One key and value of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    /// The entry's key.
    public var key: CBORValue
    /// The entry's value.
    public var value: CBORValue

    /// The entry `key`: `value`.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
