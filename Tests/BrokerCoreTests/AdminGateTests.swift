import BrokerCore
import BrokerHTTP
import BrokerModel
import Testing

/// The admin API's lockout counts failures per client address, in bounded memory.
@Suite struct AdminGateTests {
    static let token = "admin-token-for-tests-0123456789"

    static func request(from address: String, token: String) -> HTTPRequest {
        var request = HTTPRequest(
            method: "GET", path: "/admin/v1/users", headers: ["Authorization": "Bearer \(token)"], peerAddress: address)
        request.clientAddress = address
        return request
    }

    /// The status the gate answers (200 when it lets the request through).
    static func status(_ gate: AdminGate, from address: String, token: String = AdminGateTests.token) async -> Int {
        do {
            try await gate.check(request(from: address, token: token))
            return 200
        } catch let error as AdminAuthenticationError {
            return APIError.mapping(error)?.status ?? -2
        } catch {
            return -1
        }
    }

    @Test func anAttackersFailuresLockOnlyTheAttackersAddress() async {
        let clock = ManualClock()
        let gate = AdminGate(token: Self.token, clock: clock)
        for _ in 0..<AdminGate.maximumFailures {
            #expect(await Self.status(gate, from: "203.0.113.66", token: "guess") == 401)
        }
        // The attacker is locked out, even with the right token...
        #expect(await Self.status(gate, from: "203.0.113.66") == 429)
        // ...while the right token from a clean address works, and a wrong one there is only a 401.
        #expect(await Self.status(gate, from: "198.51.100.1") == 200)
        #expect(await Self.status(gate, from: "198.51.100.2", token: "typo") == 401)
        #expect(await Self.status(gate, from: "198.51.100.2") == 200)
        // The window passes: the attacker's address is open again.
        clock.advance(by: AdminGate.window)
        #expect(await Self.status(gate, from: "203.0.113.66") == 200)
    }

    @Test func failuresBelowTheLimitDoNotLock() async {
        let gate = AdminGate(token: Self.token, clock: ManualClock())
        for _ in 0..<(AdminGate.maximumFailures - 1) {
            #expect(await Self.status(gate, from: "203.0.113.5", token: "guess") == 401)
        }
        #expect(await Self.status(gate, from: "203.0.113.5") == 200)
    }

    @Test func theCountersMemoryIsBounded() async {
        let clock = ManualClock()
        let gate = AdminGate(token: Self.token, clock: clock)
        // The address to lock first, then more addresses with one failure each than the gate remembers.
        for _ in 0..<AdminGate.maximumFailures {
            #expect(await Self.status(gate, from: "203.0.113.66", token: "guess") == 401)
        }
        clock.advance(by: 1)
        for index in 0..<(AdminGate.maximumTrackedAddresses + 10) {
            let address = "10.\(index / 65_536).\(index / 256 % 256).\(index % 256)"
            #expect(await Self.status(gate, from: address, token: "guess") == 401)
        }
        #expect(await gate.trackedAddressCount == AdminGate.maximumTrackedAddresses)
        // The stalest address was forgotten first: the locked one.
        #expect(await Self.status(gate, from: "203.0.113.66") == 200)
    }
}
