import BrokerCore
import BrokerHTTP
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@testable import BrokerDrivers

/// The driver's own answers carry `X-Request-Id` like every other response: the client's when it sent a
/// usable one, else a new one.
@Suite struct MHDRequestIDTests {
    @Test func aDeclaredBodyOverTheLimitGets413WithTheRequestID() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start(maxBodyBytes: 1024) { request in
            await log.record(request)
            return textResponse("handled")
        }
        let body = [UInt8](repeating: 0x61, count: 2048)
        let echoed = try await harness.send("POST", "/upload", headers: [("X-Request-Id", "too-big-1")], body: body)
        let fresh = try await harness.send("POST", "/upload", body: body)
        await harness.stop()
        #expect(echoed.status == 413)
        #expect(echoed.headers["x-request-id"] == "too-big-1")
        #expect(JSONValue.parse(echoed.body)?["error"]?["code"]?.stringValue == "PAYLOAD_TOO_LARGE")
        #expect(fresh.status == 413)
        #expect(fresh.headers["x-request-id"]?.utf8.count == 16)
        #expect(await log.requests.isEmpty)
    }

    @Test func aChunkedBodyOverTheLimitGets413WithTheRequestID() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start(maxBodyBytes: 1024) { request in
            await log.record(request)
            return textResponse("handled")
        }
        let socket = try RawSocket(port: harness.port)
        let chunk = String(repeating: "b", count: 1500)
        socket.send(
            "POST /upload HTTP/1.1\r\nHost: a\r\nX-Request-Id: chunked-2\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "\(String(chunk.utf8.count, radix: 16))\r\n\(chunk)\r\n0\r\n\r\n")
        let received = await socket.readResponse(seconds: 10)
        await harness.stop()
        #expect(RawSocket.statusLines(in: received) == [413])
        #expect(RawSocket.header("X-Request-Id", in: received) == "chunked-2")
        #expect(await log.requests.isEmpty)
    }

    @Test func theDrainingAnswerCarriesTheRequestID() {
        let echoed = mhdShuttingDown(requestID: "draining-3")
        #expect(echoed.status == 503)
        #expect(echoed.header("X-Request-Id") == "draining-3")
        #expect(echoed.header("Retry-After") == "1")
        #expect(mhdShuttingDown(requestID: "").header("X-Request-Id")?.utf8.count == 16)
    }

    @Test(arguments: [
        ("abc-DEF_1.2", "abc-DEF_1.2"), ("", nil), ("has space", nil), (String(repeating: "x", count: 65), nil),
        ("ünï", nil),
    ])
    func requestIDsFromClientsAreKeptOnlyWhenPlain(_ header: String, _ kept: String?) {
        let id = RequestID.from(header: header)
        if let kept {
            #expect(id == kept)
        } else {
            #expect(id != header)
            #expect(
                id.utf8.count == 16 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        }
    }
}
