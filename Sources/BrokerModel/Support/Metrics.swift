import Foundation

/// Counters and histograms, rendered as Prometheus text at `/metrics`.
public final class Metrics: @unchecked Sendable {
    private struct Key: Hashable {
        var name: String
        var labels: [Label]  // in the order given, escaped only when rendered
    }

    private struct Label: Hashable {
        var name: String
        var value: String
    }

    private struct Histogram {
        var buckets: [Int]
        var sum: Double = 0
        var count: Int = 0
    }

    /// Upper bounds (seconds) of the latency histograms' buckets.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    // Guarded by `lock`.
    private var counters: [Key: Double] = [:]
    private var histograms: [Key: Histogram] = [:]
    private var help: [String: (type: String, text: String)] = [:]
    private let lock = NSLock()

    /// Creates an empty registry that describes every family of ``families``.
    public init() {
        for family in Metrics.families { help[family.name] = (family.type, family.help) }
    }

    /// Adds `amount` to the counter `name` with `labels`.
    public func increment(_ name: String, labels: KeyValuePairs<String, String> = [:], by amount: Double = 1) {
        let key = Key(name: name, labels: labels.map { Label(name: $0.key, value: $0.value) })
        lock.withLock { counters[key, default: 0] += amount }
    }

    /// Sets the gauge `name` with `labels` to `value` (rendered like a counter; declare it a `gauge`).
    public func set(_ name: String, labels: KeyValuePairs<String, String> = [:], to value: Double) {
        let key = Key(name: name, labels: labels.map { Label(name: $0.key, value: $0.value) })
        lock.withLock { counters[key] = value }
    }

    /// Records one observation (seconds) in the histogram `name`.
    public func observe(_ name: String, labels: KeyValuePairs<String, String> = [:], seconds: Double) {
        let key = Key(name: name, labels: labels.map { Label(name: $0.key, value: $0.value) })
        lock.withLock {
            var histogram = histograms[key] ?? Histogram(buckets: Array(repeating: 0, count: Metrics.latencyBuckets.count))
            for (index, bound) in Metrics.latencyBuckets.enumerated() where seconds <= bound {
                histogram.buckets[index] += 1
            }
            histogram.sum += seconds
            histogram.count += 1
            histograms[key] = histogram
        }
    }

    /// Declares the HELP text and type of a metric family.
    public func describe(_ name: String, type: String, help text: String) {
        lock.withLock { help[name] = (type, text) }
    }

    /// The current value of a counter; for tests.
    public func value(_ name: String, labels: KeyValuePairs<String, String> = [:]) -> Double {
        let key = Key(name: name, labels: labels.map { Label(name: $0.key, value: $0.value) })
        return lock.withLock { counters[key] ?? 0 }
    }

    /// The Prometheus text exposition of everything recorded.
    public func exposition() -> String {
        lock.withLock {
            var out = ""
            let names = Set(counters.keys.map(\.name)).union(histograms.keys.map(\.name)).sorted()
            for name in names {
                // Every family gets HELP and TYPE, described or not (the type then follows from how it was recorded).
                let isHistogram = histograms.keys.contains { $0.name == name }
                let info = help[name] ?? (isHistogram ? "histogram" : "counter", "\(name) (no description).")
                out += "# HELP \(name) \(info.text)\n# TYPE \(name) \(info.type)\n"
                for (key, value) in counters where key.name == name {
                    out += "\(name)\(Metrics.braces(key.labels)) \(Metrics.number(value))\n"
                }
                for (key, histogram) in histograms where key.name == name {
                    for (index, bound) in Metrics.latencyBuckets.enumerated() {
                        let labels = key.labels + [Label(name: "le", value: Metrics.number(bound))]
                        out += "\(name)_bucket\(Metrics.braces(labels)) \(histogram.buckets[index])\n"
                    }
                    out += "\(name)_bucket\(Metrics.braces(key.labels + [Label(name: "le", value: "+Inf")])) \(histogram.count)\n"
                    out += "\(name)_sum\(Metrics.braces(key.labels)) \(Metrics.number(histogram.sum))\n"
                    out += "\(name)_count\(Metrics.braces(key.labels)) \(histogram.count)\n"
                }
            }
            return out
        }
    }

    /// `{k="v",...}` with the values escaped as the text format asks, or nothing without labels.
    private static func braces(_ labels: [Label]) -> String {
        guard !labels.isEmpty else { return "" }
        let pairs = labels.map { label in
            let escaped = label.value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            return "\(label.name)=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
