import BrokerCore
import BrokerDrivers
import BrokerModel
import BrokerTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A listening loopback socket that never accepts on its own: the kernel completes a client's connection into
/// the backlog, and ``acceptPending()`` finds it, so a test can tell whether anyone connected at all.
final class LoopbackListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32

    struct Failure: Error, CustomStringConvertible { var description: String }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0, listen(fd, 16) == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0
        else {
            close(fd)
            throw Failure(description: "cannot listen on 127.0.0.1")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// Accepts every connection waiting and closes it at once (the client sees the connection end); how many.
    func acceptPending() -> Int {
        var count = 0
        for _ in 0..<64 {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { break }
            close(client)
            count += 1
        }
        return count
    }
}

/// The broker connects to the SMTP server only to send a mail: not at start, not in `check-config`, not for
/// a sign-up; a reset is what makes it connect.
@Suite("Mail: no SMTP connection until a mail is sent", .serialized)
struct MailNoConnectionTests {
    @Test func neitherCheckConfigNorStartNorSignUpConnectsAndAResetDoes() async throws {
        let directory = try ProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let listener = try LoopbackListener()
        let document = ConfigEdit.set(
            StubProviders.brokerConfig(stubsAt: "http://127.0.0.1:9"), ["mail"],
            ["smtpUrl": .string("smtp://mailer@127.0.0.1:\(listener.port)"), "from": "a@example.com"])
        let config = directory.appendingPathComponent("providers.json").path
        try Data(document.serialized()).write(to: URL(fileURLWithPath: config))
        let environment = ["BROKER_SMTP_PASSWORD": "pw-for-the-listener"]

        let check = try ProcessTests.spawn(["check-config", "--config", config], environment: environment)
        #expect(try await check.wait(seconds: 60) == 0, "\(check.stderr)")
        #expect(listener.acceptPending() == 0)

        let database = directory.appendingPathComponent("b.sqlite").path
        let server = try await BrokerProcess.start(
            environment: environment.merging(["BROKER_CONFIG": config, "BROKER_DATABASE": database]) { $1 })
        let signUp = try await server.post("/v1/signup", ["email": "quiet@example.com", "password": "first-password"])
        #expect(signUp.status == 201)
        // Started, answering, one account made: still no connection (and no mail job).
        #expect(try await server.get("/healthz").status == 200)
        #expect(listener.acceptPending() == 0)

        // The control: a reset makes the outbox connect (and the closed connection is a retried failure).
        #expect(try await server.post("/v1/password/reset", ["email": "quiet@example.com"]).status == 204)
        var connections = 0
        for _ in 0..<120 where connections == 0 {
            connections += listener.acceptPending()
            if connections == 0 { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(connections >= 1)
        _ = try await server.child.waitForLog("outbox attempt failed", seconds: 60)
        #expect(try await server.stop() == 0)
        #expect(!server.child.stderr.contains("pw-for-the-listener"))
    }
}
