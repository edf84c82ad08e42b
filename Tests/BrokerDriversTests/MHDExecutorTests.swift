import BrokerCore
import BrokerDrivers
import Dispatch
import Foundation
import Testing

/// MicroHTTPDServer runs a request's handler on the libmicrohttpd thread that read it, between its waits.
@Suite struct MHDExecutorTests {
    /// A server with `threads` polling threads and a client for it.
    private func start(
        threads: Int, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws -> (server: MicroHTTPDServer, client: CurlHTTPClient, port: Int) {
        let server = MicroHTTPDServer(threads: threads)
        let port = try server.start(host: "127.0.0.1", port: 0, maxBodyBytes: 4096, handler: handler)
        return (server, try CurlHTTPClient(), port)
    }

    private func get(_ client: CurlHTTPClient, _ port: Int, _ path: String, headers: [(name: String, value: String)] = [])
        async throws -> HTTPClientResponse
    {
        try await client.send(
            HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(port)\(path)", headers: headers, timeout: 20))
    }

    /// The calling thread's name ("MHD-…" for libmicrohttpd's threads), from Linux's `/proc/thread-self/comm`.
    private static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until a dispatch queue (another thread) resumes the caller.
    private static func waitElsewhere() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { continuation.resume() }
        }
    }

    @Test func theHandlerRunsOnLibmicrohttpdsThreadBeforeAndAfterEachWait() async throws {
        let log = HTTPEventLog()
        let (server, client, port) = try start(threads: 1) { request in
            var names = [Self.threadName()]
            for _ in 0..<3 {
                await Self.waitElsewhere()
                names.append(Self.threadName())
            }
            for name in names { await log.note(name) }
            return textResponse(request.path)
        }
        let first = try await get(client, port, "/one")
        let second = try await get(client, port, "/two")
        await client.shutdown()
        await server.shutdown()

        #expect(first.status == 200)
        #expect(first.body == Array("/one".utf8))
        #expect(second.status == 200)
        #expect(second.body == Array("/two".utf8))
        let names = await log.events
        #expect(names.count == 8)
        #expect(names.allSatisfy { $0.hasPrefix("MHD") }, "handler threads: \(names)")
    }

    @Test func aWaitingHandlerHoldsNoThreadFromAFastRequest() async throws {
        let gate = HTTPGate()
        let log = HTTPEventLog()
        let (server, client, port) = try start(threads: 1) { request in
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
        let (server, client, port) = try start(threads: 2) { request in
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
