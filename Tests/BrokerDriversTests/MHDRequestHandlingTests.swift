import BrokerCore
import BrokerDrivers
import BrokerModel
import Foundation
import Testing

/// MicroHTTPDServer: a handler that waits holds up no other request, and a request's headers reach the handler
/// once each, repeated ones joined.
@Suite struct MHDRequestHandlingTests {
    /// A server and a client for it.
    private func start(
        _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws -> (server: MicroHTTPDServer, client: CurlHTTPClient, port: Int) {
        let server = MicroHTTPDServer()
        let port = try server.start(host: "127.0.0.1", port: 0, maxBodyBytes: 4096, handler: handler)
        return (server, try CurlHTTPClient(), port)
    }

    private func get(_ client: CurlHTTPClient, _ port: Int, _ path: String, headers: [(name: String, value: String)] = [])
        async throws -> HTTPClientResponse
    {
        try await client.send(
            HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(port)\(path)", headers: headers, timeout: 20))
    }

    @Test func aWaitingHandlerHoldsNoThreadFromAFastRequest() async throws {
        let gate = HTTPGate()
        let log = HTTPEventLog()
        let (server, client, port) = try start { request in
            await log.record(request)
            if request.path == "/slow" {
                await gate.wait()
                await log.note("slow handler done")
            }
            return textResponse(request.path)
        }
        let slow = Task { try await get(client, port, "/slow").status }
        let parked = await log.waitUntil { $0.count == 1 }
        try #require(parked)

        let fast = try await get(client, port, "/fast")
        await log.note("fast answered")
        await gate.open()
        let slowStatus = try await slow.value
        await client.shutdown()
        await server.shutdown()

        #expect(fast.status == 200)
        #expect(fast.body == Array("/fast".utf8))
        #expect(slowStatus == 200)
        #expect(await log.events == ["fast answered", "slow handler done"])
    }

    @Test func repeatedHeadersAreJoinedUnderTheirLowercasedName() async throws {
        let log = HTTPEventLog()
        let (server, client, port) = try start { request in
            await log.record(request)
            return textResponse("ok")
        }
        let response = try await get(
            client, port, "/h", headers: [(name: "X-Twice", value: "a"), (name: "x-twice", value: "b"), (name: "X-Once", value: "c")])
        await client.shutdown()
        await server.shutdown()

        #expect(response.status == 200)
        let request = try #require(await log.requests.first)
        #expect(request.headers["x-twice"] == "a, b")
        #expect(request.headers["x-once"] == "c")
        #expect(request.headers["X-Once"] == nil)
    }
}
