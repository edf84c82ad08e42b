import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

/// The driver reports each request's peer address, and caps connections per peer.
@Suite struct MHDPeerAddressTests {
    static func peerSeen(listeningOn host: String, from source: String) async throws -> String? {
        let log = HTTPEventLog()
        let server = MicroHTTPDServer()
        let port = try server.start(host: host, port: 0, maxBodyBytes: 1024) { request in
            await log.record(request)
            return textResponse("ok")
        }
        let socket = try RawSocket(port: port, from: source)
        socket.send("GET /who HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let answer = await socket.readResponse(seconds: 10)
        await server.shutdown()
        #expect(RawSocket.statusLines(in: answer) == [200])
        return await log.requests.first?.peerAddress
    }

    @Test func anIPv4PeerIsItsAddress() async throws {
        #expect(try await Self.peerSeen(listeningOn: "127.0.0.1", from: "127.0.0.2") == "127.0.0.2")
    }

    @Test func thePerAddressCapCountsEachPeer() async throws {
        let server = MicroHTTPDServer(
            limits: HTTPServerLimits(
                maxConnections: 64, maxConnectionsPerAddress: 2, idleTimeoutSeconds: 30, requestDeadlineSeconds: 30))
        let port = try server.start(host: "127.0.0.1", port: 0, maxBodyBytes: 1024) { _ in textResponse("ok") }
        var held: [RawSocket] = []
        var statuses: [String: [Int]] = [:]
        for source in ["127.0.0.6", "127.0.0.6", "127.0.0.6", "127.0.0.7"] {
            let socket = try RawSocket(port: port, from: source)
            socket.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            statuses[source, default: []] += RawSocket.statusLines(in: await socket.readResponse(seconds: 10))
            held.append(socket)
        }
        let counted = (server.openConnectionCount(from: "127.0.0.6"), server.openConnectionCount(from: "127.0.0.7"))
        for socket in held { socket.close() }
        await server.shutdown()
        // The third connection from 127.0.0.6 was closed unanswered; 127.0.0.7 was not affected.
        #expect(statuses["127.0.0.6"] == [200, 200])
        #expect(statuses["127.0.0.7"] == [200])
        #expect(counted.0 == 2)
        #expect(counted.1 == 1)
    }
}
