import Foundation

/// Collects what is wrong with a configuration so that `check-config` and `serve` report every error at once.
public final class ConfigIssues: @unchecked Sendable {
    // Guarded by `lock`.
    private var recorded: [ConfigError] = []
    private let lock = NSLock()

    /// Creates an empty collection.
    public init() {}

    /// Adds `error` (a repeat of one already recorded is dropped).
    public func record(_ error: ConfigError) {
        lock.withLock { if !recorded.contains(error) { recorded.append(error) } }
    }

    /// The errors in the order found.
    public var errors: [ConfigError] { lock.withLock { recorded } }

    /// `body`'s value, or `fallback` after recording the ``ConfigError`` it threw; other errors pass through.
    public func attempt<T>(_ fallback: T, _ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch let error as ConfigError {
            record(error)
            return fallback
        }
    }

    /// The known name closest to `name` when it is close enough to be a misspelling: the same ignoring case, or
    /// at most 2 edits away (1 for names of 4 letters or fewer).
    public static func nearest(to name: String, among known: Set<String>) -> String? {
        let lower = name.lowercased()
        let scored = known.map { ($0, distance(lower, $0.lowercased())) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best = scored.first else { return nil }
        return best.1 <= (name.count <= 4 ? 1 : 2) ? best.0 : nil
    }

    /// Levenshtein distance, on characters; bounded by the names' lengths (config keys are short).
    static func distance(_ a: String, _ b: String) -> Int {
        let left = Array(a.prefix(64))
        let right = Array(b.prefix(64))
        guard !left.isEmpty else { return right.count }
        guard !right.isEmpty else { return left.count }
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for i in 1...left.count {
            current[0] = i
            for j in 1...right.count {
                let substitution = previous[j - 1] + (left[i - 1] == right[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[right.count]
    }
}
