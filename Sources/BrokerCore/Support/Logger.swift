import Foundation

/// Where log lines go.
public protocol LogSink: Sendable {
    /// Writes one complete line (without the newline).
    func write(_ line: String)
}

/// Writes lines to standard error, one `write(2)` per line so lines from threads never interleave.
public struct StandardErrorLogSink: LogSink {
    /// Creates the sink.
    public init() {}
    /// Writes the line and a newline.
    public func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            _ = Foundation.write(2, base, raw.count)
        }
    }
}

/// Collects lines in memory; for tests.
public final class MemoryLogSink: LogSink, @unchecked Sendable {
    // Guarded by `lock`.
    private var stored: [String] = []
    private let lock = NSLock()
    /// Creates an empty sink.
    public init() {}
    /// Keeps the line.
    public func write(_ line: String) { lock.withLock { stored.append(line) } }
    /// The lines written so far.
    public var lines: [String] { lock.withLock { stored } }
}

/// A small logger shaped like swift-log's: JSON lines with a level, a message and metadata. Callers must
/// never pass a token, password, key or Authorization header as metadata.
public struct Logger: Sendable {
    /// Severity levels.
    public enum Level: String, Sendable, Comparable {
        /// Detail for debugging.
        case debug
        /// Normal operation.
        case info
        /// Something unexpected that was handled.
        case warning
        /// A failure.
        case error

        private var rank: Int { [Level.debug, .info, .warning, .error].firstIndex(of: self) ?? 0 }
        /// Orders by severity.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
    }

    /// Metadata attached to every line of this logger (e.g. the request id).
    public var metadata: [String: LogValue]
    /// Lines below this level are dropped.
    public var minimumLevel: Level
    private let sink: any LogSink

    /// Creates a logger writing to `sink`.
    public init(sink: any LogSink = StandardErrorLogSink(), minimumLevel: Level = .info, metadata: [String: LogValue] = [:]) {
        self.sink = sink
        self.minimumLevel = minimumLevel
        self.metadata = metadata
    }

    /// A logger that writes nothing.
    public static let disabled = Logger(sink: DiscardingSink(), minimumLevel: .error)

    /// This logger with more metadata.
    public func with(_ extra: [String: LogValue]) -> Logger {
        var copy = self
        copy.metadata.merge(extra) { _, new in new }
        return copy
    }

    /// This logger with more metadata, all strings.
    public func with(_ extra: [String: String]) -> Logger { with(extra.mapValues(LogValue.string)) }

    /// Logs at `level`; each metadata value is written with its JSON type.
    public func log(_ level: Level, _ message: String, metadata extra: [String: LogValue] = [:]) {
        guard level >= minimumLevel else { return }
        // Sized once for every field: a request's line has about ten, which would grow the table twice.
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(3 + metadata.count + extra.count)
        fields["time"] = .string(Logger.timestamp(Date()))
        fields["level"] = .string(level.rawValue)
        fields["msg"] = .string(message)
        for (key, value) in metadata { fields[key] = value.json }
        for (key, value) in extra { fields[key] = value.json }
        sink.write(String(decoding: JSONValue.object(fields).serialized(), as: UTF8.self))
    }

    /// Logs at `level` with string metadata (what call sites holding `String`s pass).
    public func log(_ level: Level, _ message: String, metadata extra: [String: String]) {
        log(level, message, metadata: extra.mapValues(LogValue.string))
    }

    /// Logs a debugging detail.
    public func debug(_ message: String, metadata: [String: LogValue] = [:]) { log(.debug, message, metadata: metadata) }
    /// Logs normal operation.
    public func info(_ message: String, metadata: [String: LogValue] = [:]) { log(.info, message, metadata: metadata) }
    /// Logs something unexpected that was handled.
    public func warning(_ message: String, metadata: [String: LogValue] = [:]) { log(.warning, message, metadata: metadata) }
    /// Logs a failure.
    public func error(_ message: String, metadata: [String: LogValue] = [:]) { log(.error, message, metadata: metadata) }

    /// Logs a debugging detail with string metadata.
    public func debug(_ message: String, metadata: [String: String]) { log(.debug, message, metadata: metadata) }
    /// Logs normal operation with string metadata.
    public func info(_ message: String, metadata: [String: String]) { log(.info, message, metadata: metadata) }
    /// Logs something unexpected that was handled, with string metadata.
    public func warning(_ message: String, metadata: [String: String]) { log(.warning, message, metadata: metadata) }
    /// Logs a failure with string metadata.
    public func error(_ message: String, metadata: [String: String]) { log(.error, message, metadata: metadata) }

    static func timestamp(_ date: Date) -> String {
        RFC3339.format(date, milliseconds: true)
    }
}

private struct DiscardingSink: LogSink {
    func write(_ line: String) {}
}
