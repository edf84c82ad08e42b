/// One metadata value of a log line, written with its JSON type: `"status":401`, `"durationMs":1.23`,
/// `"cached":true`. Literals pick their case (`["status": 401, "route": "/healthz"]`), and string
/// interpolation makes a string, so call sites read as they would with plain strings.
public enum LogValue: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral
{
    /// A JSON string.
    case string(String)
    /// A JSON integer.
    case int(Int64)
    /// A JSON number with a fraction (a non-finite one is written as null).
    case double(Double)
    /// A JSON boolean.
    case bool(Bool)

    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A number value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer value from any integer type (clamped to Int64).
    public static func integer(_ value: some BinaryInteger) -> LogValue { .int(Int64(clamping: value)) }

    /// The value as JSON.
    public var json: JSONValue {
        switch self {
        case .string(let text): return .string(text)
        case .int(let number): return .int(number)
        case .double(let number): return number.isFinite ? .double(number) : .null
        case .bool(let flag): return .bool(flag)
        }
    }

    /// Writes the value as ``json`` is written.
    func write(into writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.string(text)
        case .int(let number): writer.int(number)
        case .double(let number): writer.value(number.isFinite ? .double(number) : .null)
        case .bool(let flag): writer.bool(flag)
        }
    }

    /// The value as text (without quotes).
    public var description: String {
        switch self {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        }
    }
}
