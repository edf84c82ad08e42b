import Foundation
import Testing

/// `scripts/lint` (`swift format lint --strict` on every Swift file not in .swift-format-baseline) passes, so
/// the README's test command fails on a lint error as .ci/run does.
@Suite struct LintTests {
    @Test func swiftFormatLintPasses() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString).log")
        #expect(FileManager.default.createFile(atPath: log.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: log) }
        let process = Process()
        process.executableURL = DocsAgreeTests.root.appendingPathComponent("scripts/lint")
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        // Waits without blocking a thread of the cooperative pool.
        let status = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        try output.close()
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(status == 0, "\(text)")
        #expect(text.contains("lint: swift format lint --strict on "))
    }
}
