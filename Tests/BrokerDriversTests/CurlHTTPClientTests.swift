import BrokerCore
import BrokerDrivers
import BrokerModel
import Foundation
import Testing

/// How CurlHTTPClient reports requests that produce no response.
@Suite struct CurlHTTPClientTests {
    @Test func slowServerPastTheTimeoutIsATimeout() async throws {
        let gate = HTTPGate()
        let harness = try HTTPHarness.start { _ in
            // Parked like a handler sleeping 3 s, released once the client has given up.
            await gate.wait()
            return textResponse("too late")
        }
        let started = ContinuousClock.now
        let error = await #expect(throws: HTTPClientError.self) {
            try await harness.send("GET", "/slow", timeout: 0.5)
        }
        let elapsed = ContinuousClock.now - started
        await gate.open()
        await harness.stop()

        #expect(error?.code == .timeout)
        #expect(elapsed >= .milliseconds(450))
        #expect(elapsed < .seconds(10))
    }

    @Test func refusedConnectionIsConnectionFailed() async throws {
        let client = try CurlHTTPClient()
        let error = try await withRefusingPort { port in
            await #expect(throws: HTTPClientError.self) {
                try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", timeout: 5))
            }
        }
        await client.shutdown()

        #expect(error?.code == .connectionFailed)
    }

    @Test(arguments: ["file:///etc/hostname", "ftp://127.0.0.1/x", "dict://127.0.0.1/x"])
    func onlyHTTPAndHTTPSAreAllowed(url: String) async throws {
        let client = try CurlHTTPClient()
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: url))
        }
        await client.shutdown()

        #expect(error?.code == .transport)
    }

    @Test func headerWithALineBreakIsRefusedBeforeSending() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            return HTTPResponse(status: 200)
        }
        let error = await #expect(throws: HTTPClientError.self) {
            try await harness.send("GET", "/", headers: [(name: "X-Evil", value: "a\r\nX-Injected: 1")])
        }
        await harness.stop()

        #expect(error?.code == .transport)
        #expect(await log.requests.isEmpty)
    }

    @Test func afterShutdownRequestsAreRefused() async throws {
        let harness = try HTTPHarness.start { _ in HTTPResponse(status: 200) }
        let before = try await harness.send("GET", "/")
        await harness.client.shutdown()
        let error = await #expect(throws: HTTPClientError.self) {
            try await harness.send("GET", "/")
        }
        await harness.server.shutdown()

        #expect(before.status == 200)
        #expect(error?.code == .transport)
    }

    @Test func oversizedResponseBodyIsATransportError() async throws {
        let server = MicroHTTPDServer()
        let port = try server.start(host: "127.0.0.1", port: 0, maxBodyBytes: 1024) { _ in
            HTTPResponse(status: 200, body: Array(repeating: 0x7A, count: 4096))
        }
        let client = try CurlHTTPClient(maxResponseBytes: 4095)
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", timeout: 30))
        }
        await client.shutdown()
        await server.shutdown()

        #expect(error?.code == .transport)
    }
}
