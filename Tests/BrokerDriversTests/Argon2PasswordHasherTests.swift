import BrokerCore
@testable import BrokerDrivers
import Foundation
import Testing

@Suite struct Argon2PasswordHasherTests {
    let hasher = Argon2PasswordHasher()

    @Test func hashesWithOWASPParametersAndAFreshSalt() async throws {
        let first = try await hasher.hash("correct horse")
        let second = try await hasher.hash("correct horse")
        #expect(first.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(first != second)
        #expect(!first.contains("correct horse"))
        #expect(try await hasher.verify("correct horse", against: first))
        #expect(try await hasher.verify("correct horse", against: second))
        #expect(try await hasher.verify("correct horsE", against: first) == false)
        #expect(try await hasher.verify("", against: first) == false)
    }

    @Test(arguments: ["", "plain", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA", "$argon2id$garbage"])
    func malformedHashesNeverVerify(_ encoded: String) async throws {
        #expect(try await hasher.verify("anything", against: encoded) == false)
    }

    @Test func weakerParametersAreRaisedToTheMinimum() async throws {
        let weak = Argon2PasswordHasher(memoryKiB: 1024, iterations: 1, parallelism: 1)
        #expect(try await weak.hash("pw").hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
    }

    @Test func thePoolRunsAtMostItsWorkerCountAtOnce() async throws {
        let pool = BoundedWorkerPool(workers: 2, name: "test-pool")
        let gauge = Gauge()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await pool.run {
                        gauge.enter()
                        Thread.sleep(forTimeInterval: 0.02)
                        gauge.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(gauge.peak == 2)
        #expect(gauge.total == 12)
        pool.stop()
    }

    @Test func aFullQueueRefusesWorkInsteadOfGrowing() async throws {
        let hasher = Argon2PasswordHasher(workers: 1, maximumQueued: 2)
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<12 {
                group.addTask {
                    do {
                        _ = try await hasher.hash("pw-\(index)")
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.contains(false))
        #expect(outcomes.filter { $0 }.count >= 2)
        await #expect(throws: Never.self) { _ = try await hasher.hash("after the burst") }
    }
}

/// Counts jobs in progress and the most seen at once.
final class Gauge: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private(set) var peak = 0
    private(set) var total = 0
    func enter() {
        lock.withLock {
            current += 1
            total += 1
            peak = max(peak, current)
        }
    }
    func leave() { lock.withLock { current -= 1 } }
}
