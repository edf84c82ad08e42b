import Foundation

/// Where log lines go.
public protocol LogSink: Sendable {
    /// Writes one complete line (without the newline).
    func write(_ line: String)
    /// Writes one complete line given as UTF-8 (without the newline); by default as ``write(_:)`` does.
    func write(utf8 line: [UInt8])
}

extension LogSink {
    /// Writes the line through ``write(_:)``.
    public func write(utf8 line: [UInt8]) {
        write(String(decoding: line, as: UTF8.self))
    }
}

/// Writes lines to standard error, one system call per line (`writev(2)`: the line and its newline) so lines
/// from threads never interleave.
public struct StandardErrorLogSink: LogSink {
    /// Creates the sink.
    public init() {}
    /// Writes the line and a newline.
    public func write(_ line: String) {
        write(utf8: Array(line.utf8))
    }

    /// Writes the line and a newline, in one `writev(2)`.
    public func write(utf8 line: [UInt8]) {
        var newline: UInt8 = 0x0A
        line.withUnsafeBytes { raw in
            withUnsafeMutablePointer(to: &newline) { end in
                var parts = [
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count),
                    iovec(iov_base: UnsafeMutableRawPointer(end), iov_len: 1),
                ]
                _ = writev(2, &parts, 2)
            }
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
        var fields: [(key: String, value: LogValue)] = []
        fields.reserveCapacity(extra.count)
        for (key, value) in extra { fields.append((key, value)) }
        write(level, message, fields)
    }

    /// Logs at `level` with `fields` (a later field wins over an earlier one of the same key); for a line written
    /// on every request, with no dictionary in between.
    public func log(_ level: Level, _ message: String, fields: [(key: String, value: LogValue)]) {
        guard level >= minimumLevel else { return }
        write(level, message, fields)
    }

    /// The line written in one pass: `time`, `level`, `msg`, this logger's metadata and then `extra` (each
    /// winning over the ones before it on a key they share), sorted by key as ``JSONValue/serialized()`` sorts.
    private func write(_ level: Level, _ message: String, _ extra: [(key: String, value: LogValue)]) {
        var members: [(key: String, value: LogValue)] = []
        members.reserveCapacity(3 + metadata.count + extra.count)
        members.append(("time", .string(Logger.timestamp(Date()))))
        members.append(("level", .string(level.rawValue)))
        members.append(("msg", .string(message)))
        for (key, value) in metadata { members.append((key, value)) }
        members.append(contentsOf: extra)
        // By key, then by position, so the last of a key's members is the one written.
        let order = members.indices.sorted { (members[$0].key, $0) < (members[$1].key, $1) }
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        for (place, index) in order.enumerated() {
            if place + 1 < order.count, members[order[place + 1]].key == members[index].key { continue }
            writer.key(members[index].key)
            members[index].value.write(into: &writer)
        }
        writer.endObject()
        sink.write(utf8: writer.bytes)
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
