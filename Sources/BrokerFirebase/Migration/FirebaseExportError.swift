import BrokerCore
public import BrokerModel
/// Why a Firebase export file cannot be used at all (the import then writes nothing, exit status 2).
public struct FirebaseExportError: CodedError {
    /// The stable kinds of failure.
    public enum Code: String, Sendable {
        /// The file is not well-formed JSON; ``line`` and ``column`` say where.
        case malformedFile = "MALFORMED_FILE"
        /// The JSON is fine but has no top-level `users` array.
        case notAnExport = "NOT_A_FIREBASE_EXPORT"
        /// The file, or its number of users, is beyond the bounds.
        case tooLarge = "FILE_TOO_LARGE"
        /// The file could not be read.
        case unreadable = "FILE_UNREADABLE"
    }

    /// The stable code.
    public var code: Code
    /// The 1-based line of the problem, for `malformedFile`.
    public var line: Int?
    /// The 1-based column (in characters) of the problem, for `malformedFile`.
    public var column: Int?
    /// What is wrong, for people. Never quotes the file's content.
    public var reason: String

    /// An error with `code` and `reason`, at `line`:`column` when known.
    public init(_ code: Code, _ reason: String, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.reason = reason
        self.line = line
        self.column = column
    }

    /// `line L, column C: reason`, or the reason alone.
    public var detail: String {
        if let line, let column { return "line \(line), column \(column): \(reason)" }
        return reason
    }
}

extension FirebaseExportError {
    /// None: an internal failure (``CodedError``). An export file the CLI cannot read is the operator's to fix.
    public var refusal: Refusal? { nil }
}
