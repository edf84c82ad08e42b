/// Why `CBORDecoder` refused its input. The message names the problem, never the input's bytes.
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable kind of refusal.
    public enum Code: String, Sendable {
        /// libcbor found a malformed head (a reserved additional-information value, for example).
        case malformed
        /// The input ended inside an item.
        case truncated
        /// Bytes are left after the item where none may be.
        case trailingBytes
        /// The input, an item's length, the nesting or the number of items is above `CBORLimits`.
        case tooLarge
        /// An indefinite-length item, a text string that is not UTF-8, or a map with a repeated key.
        case unsupported
    }

    /// The stable kind of refusal.
    public var code: Code
    /// What went wrong, for logs.
    public var message: String

    /// A refusal `code` described by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// The bounds a decode stays within, so that hostile input costs little: its size, the nesting and the items.
public struct CBORLimits: Sendable, Equatable {
    /// The most bytes of input read.
    public var maximumBytes: Int
    /// The deepest nesting of arrays, maps and tags (a top-level scalar is depth 0, an array holding it 1).
    public var maximumDepth: Int
    /// The most data items in all (every array, map, key, value and scalar counts one).
    public var maximumItems: Int

    /// Bounds `maximumBytes`, `maximumDepth` and `maximumItems`.
    public init(maximumBytes: Int, maximumDepth: Int, maximumItems: Int) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumItems = maximumItems
    }

    /// What WebAuthn needs with room to spare: 64 KiB (an attestation object with a certificate chain is a few
    /// KiB), 16 levels (the deepest real one is 4), 4,096 items.
    public static let webAuthn = CBORLimits(maximumBytes: 65_536, maximumDepth: 16, maximumItems: 4_096)
}
