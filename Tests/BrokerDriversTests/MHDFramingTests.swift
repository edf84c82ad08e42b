import BrokerCore
import BrokerModel
import BrokerTesting
import Foundation
import Testing

@testable import BrokerDrivers

/// Ambiguous request framing (RFC 9112 section 6.3) gets 400 and a closed connection, before any handler
/// runs, and what follows the ambiguous request is never answered as a request of its own.
@Suite struct MHDFramingTests {
    static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n"

    struct RawCase: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        /// libmicrohttpd refuses this one itself (with its own 400 page, which has no `X-Request-Id`), before
        /// the broker sees the request.
        var refusedByLibmicrohttpd = false
        var testDescription: String { name }
    }

    static let ambiguous: [RawCase] = [
        RawCase(
            name: "two different Content-Lengths",
            request:
                "POST /x HTTP/1.1\r\nHost: a\r\nX-Request-Id: framing-1\r\nContent-Length: 5\r\nContent-Length: 44\r\n\r\nhello"
                + smuggled),
        RawCase(
            name: "Content-Length and Transfer-Encoding",
            request:
                "POST /x HTTP/1.1\r\nHost: a\r\nX-Request-Id: framing-1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                + smuggled),
        RawCase(
            name: "whitespace before a header's colon",
            request:
                "POST /x HTTP/1.1\r\nHost: a\r\nX-Request-Id: framing-1\r\nTransfer-Encoding : chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                + smuggled),
        RawCase(
            name: "two values in one Content-Length",
            request: "POST /x HTTP/1.1\r\nHost: a\r\nX-Request-Id: framing-1\r\nContent-Length: 5, 44\r\n\r\nhello"
                + smuggled,
            refusedByLibmicrohttpd: true),
    ]

    @Test(arguments: ambiguous)
    func ambiguousFramingGets400AndTheConnectionCloses(_ raw: RawCase) async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            return textResponse("handled \(request.path)")
        }
        let socket = try RawSocket(port: harness.port)
        #expect(socket.send(raw.request))
        let (received, closed) = await socket.readUntilClosed(seconds: 10)
        await harness.stop()

        let statuses = RawSocket.statusLines(in: received)
        #expect(closed)
        #expect(RawSocket.header("Connection", in: received)?.lowercased() == "close")
        if raw.refusedByLibmicrohttpd {
            // libmicrohttpd 0.9.75 writes its 400's head twice; either way one 400, never a second answer.
            #expect(
                !statuses.isEmpty && statuses.allSatisfy { $0 == 400 }, "\(String(decoding: received, as: UTF8.self))")
        } else {
            #expect(statuses == [400], "\(String(decoding: received, as: UTF8.self))")
            #expect(String(decoding: received, as: UTF8.self).contains("\"code\":\"INVALID_REQUEST\""))
            #expect(RawSocket.header("X-Request-Id", in: received) == "framing-1")
        }
        // No handler ran: neither the ambiguous request nor the smuggled one.
        #expect(await log.requests.isEmpty)
    }

    @Test func unambiguousRequestsKeepTheConnection() async throws {
        let log = HTTPEventLog()
        let harness = try HTTPHarness.start { request in
            await log.record(request)
            return textResponse("handled \(request.path)")
        }
        let socket = try RawSocket(port: harness.port)
        // Two identical Content-Lengths are one length; then a second request on the same connection.
        #expect(
            socket.send(
                "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello" + Self.smuggled))
        var received: [UInt8] = []
        let deadline = Date() + 10
        while RawSocket.statusLines(in: received).count < 2, Date() < deadline {
            guard case .bytes(let bytes) = await socket.next(waiting: deadline.timeIntervalSinceNow) else { break }
            received += bytes
        }
        await harness.stop()
        #expect(RawSocket.statusLines(in: received) == [200, 200])
        #expect(await log.requests.map(\.path) == ["/x", "/smuggled"])
        #expect(await log.requests.first?.body == Array("hello".utf8))
        #expect(await log.requests.first?.peerAddress == "127.0.0.1")
    }

    @Test(arguments: [
        ([("Host", "a")], nil as String?),
        ([("Content-Length", "5")], nil),
        ([("Content-Length", "5"), ("content-length", " 5 ")], nil),
        ([("Transfer-Encoding", "chunked")], nil),
        ([("Transfer-Encoding", "Chunked ")], nil),
        ([("Content-Length", "5"), ("Content-Length", "6")], "two different Content-Length values"),
        ([("Content-Length", "5,6")], "two different Content-Length values"),
        ([("Content-Length", "5, 5")], nil),
        ([("Content-Length", "\t7\t")], nil),
        ([("Content-Length", "05"), ("Content-Length", "5")], "two different Content-Length values"),
        ([("Content-Length", "5,")], "Content-Length is not a number"),
        ([("Content-Length", "5,6"), ("Content-Length", "x")], "Content-Length is not a number"),
        ([("Content-Length", "5\u{301}")], "Content-Length is not a number"),
        ([("Content-Length", "-1")], "Content-Length is not a number"),
        ([("Content-Length", "")], "Content-Length is not a number"),
        ([("Content-Length", "99999999999999999999")], "Content-Length is not a number"),
        ([("Content-Length", "0"), ("Transfer-Encoding", "chunked")], "both Content-Length and Transfer-Encoding"),
        ([("Transfer-Encoding", "gzip, chunked")], "Transfer-Encoding must be exactly chunked"),
        (
            [("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")],
            "Transfer-Encoding must be exactly chunked"
        ),
        ([("Transfer-Encoding ", "chunked")], "a header field name is not a token (whitespace before the colon?)"),
        ([("X\tY", "1")], "a header field name is not a token (whitespace before the colon?)"),
        ([("", "1")], "a header field name is not a token (whitespace before the colon?)"),
    ])
    func framingRules(_ fields: [(String, String)], _ problem: String?) {
        #expect(mhdFramingProblem(fields.map { (name: $0.0, value: $0.1) }) == problem)
    }
}
