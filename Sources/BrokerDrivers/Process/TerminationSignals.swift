import Dispatch
import Foundation

/// SIGTERM and SIGINT, watched from the moment this is made, so make it first thing: one arriving before
/// anyone waits (while a store opens, or just after "listening" is logged) is kept for the wait. A second one
/// (a drain that hangs, Ctrl-C pressed again) ends the process at once, with 128 + the signal's number. Keep
/// the object alive for as long as the process should answer signals so.
///
/// The disposition is left alone: libdispatch installs its own handler when it registers a source, and
/// until then the default action stands, so the earliest signal ends the process rather than vanishing.
/// (Ignoring the signal first, the usual advice, leaves a gap in which a signal is discarded and the
/// process then never stops; ignoring it afterwards replaces libdispatch's handler.)
public final class TerminationSignals: @unchecked Sendable {
    private let lock = NSLock()
    private var received: String?
    private var waiter: CheckedContinuation<String, Never>?
    private var sources: [any DispatchSourceSignal] = []

    public init() {
        let queue = DispatchQueue(label: "broker.signals")
        for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.deliver(name, number: number) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    private func deliver(_ name: String, number: Int32) {
        let (first, waiting): (Bool, CheckedContinuation<String, Never>?) = lock.withLock {
            guard received == nil else { return (false, nil) }
            received = name
            defer { waiter = nil }
            return (true, waiter)
        }
        guard first else { _exit(128 + number) }
        waiting?.resume(returning: name)
    }

    /// Suspends until the first signal has arrived (at once if it already has); returns its name.
    public func wait() async -> String {
        await withCheckedContinuation { continuation in
            let name: String? = lock.withLock {
                if received == nil { waiter = continuation }
                return received
            }
            if let name { continuation.resume(returning: name) }
        }
    }
}
