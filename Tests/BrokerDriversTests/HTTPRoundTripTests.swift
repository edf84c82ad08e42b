import BrokerCore
import BrokerDrivers
import BrokerModel
import Foundation
import Testing

/// MicroHTTPDServer and CurlHTTPClient against each other: what goes in comes out.
@Suite struct HTTPRoundTripTests {
    @Test func getDeliversMethodPathDecodedQueryAndLowercasedHeaders() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            return HTTPResponse(
                status: 201,
                headers: [(name: "X-Reply", value: "ok"), (name: "Content-Type", value: "text/plain; charset=utf-8")],
                body: Array("hello".utf8))
        }
        let response = try await harness.send(
            "GET", "/v1/echo?name=J%C3%BCrgen&plus=a+b&flag&space=x%20y",
            headers: [(name: "X-Custom-Header", value: "Value 1"), (name: "Authorization", value: "Bearer t")])
        await harness.stop()

        #expect(response.status == 201)
        #expect(response.headers["x-reply"] == "ok")
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(response.headers["content-length"] == "5")
        #expect(response.body == Array("hello".utf8))
        let requests = await log.requests
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.method == "GET")
        #expect(request.path == "/v1/echo")
        #expect(request.query == ["name": "Jürgen", "plus": "a b", "flag": "", "space": "x y"])
        #expect(request.headers["x-custom-header"] == "Value 1")
        #expect(request.headers["authorization"] == "Bearer t")
        #expect(request.headers["host"] == "127.0.0.1:\(harness.port)")
        #expect(request.body.isEmpty)
    }

    @Test func postDeliversTheExactBodyAndOnlyTheCallersHeaders() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            return HTTPResponse(status: 200, body: request.body.reversed())
        }
        let body: [UInt8] = [0, 1, 2, 255, 0x0D, 0x0A, 0, 42] + Array(repeating: 7, count: 3000)
        let response = try await harness.send("POST", "/v1/token", body: body)
        let typed = try await harness.send(
            "POST", "/v1/form", headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded")],
            body: Array("a=1&b=2".utf8))
        await harness.stop()

        #expect(response.status == 200)
        #expect(response.body == body.reversed())
        #expect(typed.status == 200)
        let requests = await log.requests
        try #require(requests.count == 2)
        #expect(requests[0].method == "POST")
        #expect(requests[0].path == "/v1/token")
        #expect(requests[0].body == body)
        #expect(requests[0].headers["content-length"] == String(body.count))
        // No Content-Type or Expect the caller did not ask for.
        #expect(requests[0].headers["content-type"] == nil)
        #expect(requests[0].headers["expect"] == nil)
        #expect(requests[1].headers["content-type"] == "application/x-www-form-urlencoded")
        #expect(requests[1].body == Array("a=1&b=2".utf8))
    }

    @Test(arguments: ["PUT", "DELETE", "PATCH"])
    func otherMethodsArriveAsSent(method: String) async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            return HTTPResponse(status: 204)
        }
        let response = try await harness.send(method, "/v1/thing/7", body: Array("x".utf8))
        await harness.stop()

        #expect(response.status == 204)
        #expect(response.body.isEmpty)
        let requests = await log.requests
        #expect(requests.map(\.method) == [method])
        #expect(requests.first?.body == Array("x".utf8))
    }

    @Test func responseCarriesTheHandlersHeadersAndNothingUnexpected() async throws {
        let harness = try HTTPHarness.start { _ in
            HTTPResponse(
                status: 200,
                headers: [
                    (name: "Content-Type", value: "application/json"), (name: "Cache-Control", value: "no-store"),
                    (name: "Content-Length", value: "999"),
                ],
                body: Array("{}".utf8))
        }
        let response = try await harness.send("GET", "/")
        await harness.stop()

        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["cache-control"] == "no-store")
        // The handler's wrong Content-Length is replaced by the real one, not sent twice.
        #expect(response.headers["content-length"] == "2")
        #expect(Set(response.headers.keys) == ["content-type", "cache-control", "content-length", "date"])
    }

    @Test func redirectIsReturnedNotFollowed() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            if request.path == "/start" {
                return HTTPResponse(status: 302, headers: [(name: "Location", value: "/elsewhere")])
            }
            return textResponse("followed")
        }
        let response = try await harness.send("GET", "/start")
        await harness.stop()

        #expect(response.status == 302)
        #expect(response.headers["location"] == "/elsewhere")
        #expect(response.body.isEmpty)
        #expect(await log.requests.map(\.path) == ["/start"])
    }

    @Test func bodyOverTheLimitIsRefusedWith413WithoutCallingTheHandler() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start(maxBodyBytes: 64 * 1024) { request in
            await log.record(request)
            return HTTPResponse(status: 200)
        }
        let response = try await harness.send("POST", "/v1/big", body: Array(repeating: 0x61, count: 64 * 1024 + 1))
        await harness.stop()

        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "application/json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let error = try #require(json["error"] as? [String: Any])
        #expect(error["code"] as? String == "PAYLOAD_TOO_LARGE")
        #expect((error["message"] as? String)?.isEmpty == false)
        #expect(await log.requests.isEmpty)
    }

    @Test func chunkedBodyOverTheLimitIsRefusedWith413WithoutCallingTheHandler() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start(maxBodyBytes: 1024) { request in
            await log.record(request)
            return HTTPResponse(status: 200)
        }
        // No Content-Length up front: the limit is enforced while the body streams in.
        let response = try await harness.send(
            "POST", "/v1/chunked", headers: [(name: "Transfer-Encoding", value: "chunked")],
            body: Array(repeating: 0x62, count: 5000))
        let small = try await harness.send(
            "POST", "/v1/chunked", headers: [(name: "Transfer-Encoding", value: "chunked")],
            body: Array(repeating: 0x62, count: 1024))
        await harness.stop()

        #expect(response.status == 413)
        #expect(small.status == 200)
        let requests = await log.requests
        #expect(requests.count == 1)
        #expect(requests.first?.body.count == 1024)
        #expect(requests.first?.headers["content-length"] == nil)
    }

    @Test func bodyOfExactlyTheLimitIsAccepted() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start(maxBodyBytes: 64 * 1024) { request in
            await log.record(request)
            return textResponse("\(request.body.count)")
        }
        let body = (0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let response = try await harness.send("POST", "/v1/exact", body: body)
        await harness.stop()

        #expect(response.status == 200)
        #expect(response.body == Array("65536".utf8))
        #expect(await log.requests.first?.body == body)
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let harness = try HTTPHarness.start { request in textResponse(request.path) }
        for index in 0..<20 {
            let response = try await harness.send("GET", "/n/\(index)")
            #expect(response.status == 200)
            #expect(response.body == Array("/n/\(index)".utf8))
        }
        let accepted = harness.server.acceptedConnectionCount
        await harness.stop()

        #expect(accepted == 1)
    }
}
