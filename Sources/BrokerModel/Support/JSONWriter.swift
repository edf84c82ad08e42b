/// Writes JSON text in one pass into a byte buffer, with no ``JSONValue`` tree, dictionary or sort in between:
/// for the bodies and log lines written on every request. Members come out in the order they are written, so a
/// caller that wants the text ``JSONValue/serialized()`` makes writes them with their keys sorted. Strings are
/// escaped as ``JSONValue/serialized()`` escapes them.
public struct JSONWriter: Sendable {
    /// The text so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value or key follows another in the same object or array (and so needs a comma).
    private var afterValue = false

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object (as a value).
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        afterValue = false
    }

    /// Closes the object opened last.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        afterValue = true
    }

    /// Opens an array (as a value).
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        afterValue = false
    }

    /// Closes the array opened last.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        afterValue = true
    }

    /// Writes a member's key; its value is what is written next.
    public mutating func key(_ name: String) {
        separate()
        JSONValue.writeString(name, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterValue = false
    }

    /// Writes a string value.
    public mutating func string(_ text: String) {
        separate()
        JSONValue.writeString(text, into: &bytes)
        afterValue = true
    }

    /// Writes a string value, or `null` for nil.
    public mutating func string(_ text: String?) {
        guard let text else { return null() }
        string(text)
    }

    /// Writes an integer value.
    public mutating func int(_ number: Int64) {
        value(.int(number))
    }

    /// Writes a boolean value.
    public mutating func bool(_ flag: Bool) {
        value(.bool(flag))
    }

    /// Writes `null`.
    public mutating func null() {
        value(.null)
    }

    /// Writes any JSON value as ``JSONValue/serialized()`` would.
    public mutating func value(_ value: JSONValue) {
        separate()
        value.write(into: &bytes)
        afterValue = true
    }

    /// A comma before a value or key that follows another.
    private mutating func separate() {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
    }
}

/// JSON text a ``JSONWriter`` wrote: a response body ready to send.
public struct JSONText: Sendable, Equatable {
    /// The UTF-8 text.
    public let bytes: [UInt8]

    /// Wraps text already known to be JSON.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}
