import BrokerCore
import BrokerDrivers
import BrokerModel
import Foundation
import Testing

/// Slow handlers must not hold up anything else, on either side.
@Suite struct HTTPConcurrencyTests {
    @Test func fortySlowRequestsRunConcurrently() async throws {
        let harness = try HTTPHarness.start { request in
            try? await Task.sleep(for: .seconds(1))
            return textResponse(request.path)
        }
        let started = ContinuousClock.now
        let statuses = try await withThrowingTaskGroup(of: (Int, Int, [UInt8]).self) { group in
            for index in 0..<40 {
                group.addTask {
                    let response = try await harness.send("GET", "/slow/\(index)")
                    return (index, response.status, response.body)
                }
            }
            var results: [(Int, Int, [UInt8])] = []
            for try await result in group { results.append(result) }
            return results
        }
        let elapsed = ContinuousClock.now - started
        await harness.stop()

        #expect(statuses.count == 40)
        for (index, status, body) in statuses {
            #expect(status == 200)
            #expect(body == Array("/slow/\(index)".utf8))
        }
        // Served one after another this would take 40 s; the bound is generous for a loaded machine.
        #expect(elapsed < .seconds(15))
    }

    @Test func fastRequestIsAnsweredWhileSlowOnesAreStillRunning() async throws {
        let gate = HTTPGate()
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            if request.path.hasPrefix("/slow") {
                await gate.wait()
                await log.note("slow handler done")
            }
            return textResponse(request.path)
        }
        let slow = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask { try await harness.send("GET", "/slow/\(index)", timeout: 30).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        // Every slow request is inside the handler, parked on the gate.
        let allParked = await log.waitUntil { $0.count == 40 }
        try #require(allParked)

        let fast = try await harness.send("GET", "/fast", timeout: 10)
        await log.note("fast answered")
        await gate.open()
        let slowStatuses = try await slow.value
        await harness.stop()

        #expect(fast.status == 200)
        #expect(fast.body == Array("/fast".utf8))
        #expect(slowStatuses == Array(repeating: 200, count: 40))
        let events = await log.events
        #expect(events.first == "fast answered")
        #expect(events.filter { $0 == "slow handler done" }.count == 40)
    }

    @Test func cancellingTheCallerAbandonsTheTransfer() async throws {
        let gate = HTTPGate()
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            await gate.wait()
            return textResponse("late")
        }
        let call = Task { try await harness.send("GET", "/parked", timeout: 30) }
        try #require(await log.waitUntil { $0.count == 1 })
        call.cancel()
        let outcome = await call.result
        await gate.open()
        // The client still works afterwards.
        let after = try await harness.send("GET", "/after")
        await harness.stop()

        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(after.status == 200)
    }
}
