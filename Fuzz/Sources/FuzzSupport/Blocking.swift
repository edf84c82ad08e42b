import CFuzzDriver
import Dispatch
import Foundation

/// Runs `body` on the concurrency runtime and waits for it: libFuzzer calls each target synchronously on its own
/// thread (never a cooperative pool thread), so blocking it here stalls nothing else.
@discardableResult
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        result.set(await body())
        done.signal()
    }
    done.wait()
    guard let value = result.value else { fatalError("runBlocking: the task ended without a value") }
    return value
}

/// One value handed from a task to the waiting thread; the semaphore orders the write before the read.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // Guarded by `lock`.
    private var stored: T?
    private let lock = NSLock()

    func set(_ value: T) { lock.withLock { stored = value } }

    var value: T? { lock.withLock { stored } }
}

/// One fuzz target: libFuzzer calls it with each input.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer on `target` with the process's arguments (libFuzzer's flags, corpus directories); the
/// `<module>_main` of each fuzz target calls it.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ target: FuzzTarget
) -> CInt {
    c_fuzz_driver_run(argc, argv, target)
}

/// The fuzz input as bytes.
public func fuzzBytes(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}

/// Splits `bytes` at each `separator` byte, keeping empty parts, into at most `limit` parts (the last keeps the rest).
public func fuzzParts(_ bytes: [UInt8], separator: UInt8 = 0, limit: Int) -> [[UInt8]] {
    bytes.split(separator: separator, maxSplits: max(0, limit - 1), omittingEmptySubsequences: false).map(Array.init)
}

/// Stops the fuzzer with `message` (libFuzzer records the input as a crash).
public func fuzzFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("fuzz failure: " + message + "\n").utf8))
    abort()
}
