import BrokerCore
import BrokerDrivers
import BrokerModel
import Foundation
import Testing

/// MicroHTTPDServer's life cycle: binding, refusing, shutting down.
@Suite struct MHDServerTests {
    @Test func shutdownWaitsForTheInFlightRequestThenRefusesConnections() async throws {
        let gate = HTTPGate()
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            guard request.path == "/slow" else { return textResponse("quick") }
            await gate.wait()
            return textResponse("finished")
        }
        let inFlight = Task { try await harness.send("GET", "/slow", timeout: 30) }
        try #require(await log.waitUntil { $0.count == 1 })

        let shutdown = Task {
            await harness.server.shutdown()
            await log.note("shutdown returned")
        }
        // New connections are refused as soon as shutdown has begun (until then the fresh client's requests
        // are answered, the last one with `Connection: close`, so its next request needs a new connection).
        let newcomer = try CurlHTTPClient()
        var refusedDuringShutdown: HTTPClientError?
        for _ in 0..<200 {
            do {
                _ = try await newcomer.send(HTTPClientRequest(url: harness.url("/new"), timeout: 2))
            } catch let error as HTTPClientError where error.code == .connectionFailed {
                refusedDuringShutdown = error
                break
            } catch is HTTPClientError {
                continue  // a slow answer on a loaded machine is not what this waits for: the refusal is
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await log.events.isEmpty, "shutdown returned while a request was in flight")

        await log.note("releasing")
        await gate.open()
        let response = try await inFlight.value
        await shutdown.value
        let afterShutdown = await #expect(throws: HTTPClientError.self) {
            try await newcomer.send(HTTPClientRequest(url: harness.url("/later"), timeout: 2))
        }
        await newcomer.shutdown()
        await harness.client.shutdown()

        #expect(refusedDuringShutdown?.code == .connectionFailed)
        #expect(response.status == 200)
        #expect(response.body == Array("finished".utf8))
        #expect(await log.events == ["releasing", "shutdown returned"])
        #expect(afterShutdown?.code == .connectionFailed)
        #expect(await log.requests.map(\.path).contains("/later") == false)
    }

    @Test func shutdownWithNothingInFlightReturnsAndCanBeRepeated() async throws {
        let server = MicroHTTPDServer()
        let port = try server.start(host: "127.0.0.1", port: 0, maxBodyBytes: 1024) { _ in HTTPResponse(status: 200) }
        let client = try CurlHTTPClient()
        let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", timeout: 30))
        await server.shutdown()
        await server.shutdown()
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", timeout: 30))
        }
        await client.shutdown()

        #expect(response.status == 200)
        // The idle keep-alive connection was closed too, and nothing listens any more.
        #expect(error?.code == .connectionFailed || error?.code == .transport)
    }

    @Test func bindsToAllInterfacesAndReportsTheEphemeralPort() async throws {
        let server = MicroHTTPDServer()
        let port = try server.start(host: "0.0.0.0", port: 0, maxBodyBytes: 1024) { _ in textResponse("any") }
        let client = try CurlHTTPClient()
        let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", timeout: 30))
        await client.shutdown()
        await server.shutdown()

        #expect(port > 0)
        #expect(response.body == Array("any".utf8))
    }

    /// `::` listens on every address, IPv4 ones too (a dual-stack socket), and an IPv4 client's address reads
    /// as IPv4 (not `::ffff:127.0.0.1`), so per-address limits and `trustedProxies` see the same text either way.
    @Test func theUnspecifiedIPv6AddressAlsoServesIPv4() async throws {
        let server = MicroHTTPDServer()
        let port = try server.start(host: "::", port: 0, maxBodyBytes: 1024) { request in textResponse(request.peerAddress) }
        let client = try CurlHTTPClient()
        let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", timeout: 30))
        await client.shutdown()
        await server.shutdown()
        #expect(response.status == 200)
        #expect(response.body == Array("127.0.0.1".utf8))
    }

    @Test func startRefusesANonNumericHost() throws {
        let server = MicroHTTPDServer()
        let error = #expect(throws: MicroHTTPDError.self) {
            try server.start(host: "not an address", port: 0, maxBodyBytes: 1024) { _ in HTTPResponse(status: 200) }
        }
        #expect(error?.code == .badHost)
    }

    /// A port in use is named as such, with the command that shows who holds it (issue 36, item 2).
    @Test func startRefusesAPortInUse() async throws {
        let first = MicroHTTPDServer()
        let port = try first.start(host: "127.0.0.1", port: 0, maxBodyBytes: 1024) { _ in HTTPResponse(status: 200) }
        let second = MicroHTTPDServer()
        let error = #expect(throws: MicroHTTPDError.self) {
            try second.start(host: "127.0.0.1", port: port, maxBodyBytes: 1024) { _ in HTTPResponse(status: 200) }
        }
        let again = #expect(throws: MicroHTTPDError.self) {
            try first.start(host: "127.0.0.1", port: 0, maxBodyBytes: 1024) { _ in HTTPResponse(status: 200) }
        }
        await first.shutdown()

        #expect(error?.code == .addressInUse)
        #expect(error?.detail.contains("127.0.0.1:\(port): address already in use") == true)
        #expect(error?.detail.contains("ss -ltnp 'sport = :\(port)'") == true)
        #expect(again?.code == .alreadyStarted)
    }

    @Test func declaredBodyFarOverTheLimitIsRefusedUpFront() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start(maxBodyBytes: 1024) { request in
            await log.record(request)
            return HTTPResponse(status: 200)
        }
        // With `Expect: 100-continue` the client waits for the server's word before sending the body, so it
        // reads the 413. Without it, the client is still writing when the server answers and closes, and
        // whether it reads the 413 or the reset first is up to the kernel: either way nothing reaches the handler.
        let response = try await harness.send(
            "PUT", "/v1/huge", headers: [("Expect", "100-continue")], body: Array(repeating: 0x63, count: 4 << 20))
        let unannounced: Int
        do {
            unannounced = try await harness.send("PUT", "/v1/huge-unannounced", body: Array(repeating: 0x63, count: 4 << 20)).status
        } catch let error as HTTPClientError where error.code == .transport {
            unannounced = 0  // the connection was closed under the client
        }
        let next = try await harness.send("GET", "/v1/next")
        await harness.stop()

        #expect(response.status == 413)
        #expect(unannounced == 413 || unannounced == 0)
        #expect(next.status == 200)
        #expect(await log.requests.map(\.path) == ["/v1/next"])
    }
}
