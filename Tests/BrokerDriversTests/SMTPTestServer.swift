import Foundation
import Testing

/// aiosmtpd (Debian's `python3-aiosmtpd`) on a loopback port, writing each mail it accepts into a Maildir
/// the test reads. Started and stopped by the test.
final class SMTPTestServer: @unchecked Sendable {
    let port: Int
    let directory: URL
    private let process: Process
    private let input: Pipe

    /// The Python that has aiosmtpd: Debian's, not a shim's.
    static let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"

    /// Whether aiosmtpd can be imported (the suites skip without it).
    static let isAvailable: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import aiosmtpd"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    static let script = """
        import sys, os
        from aiosmtpd.controller import Controller
        from aiosmtpd.handlers import Mailbox
        port, directory = int(sys.argv[1]), sys.argv[2]
        controller = Controller(Mailbox(os.path.join(directory, "mail")), hostname="127.0.0.1", port=port)
        controller.start()
        open(os.path.join(directory, "ready"), "w").close()
        sys.stdin.read()
        controller.stop()
        """

    /// Starts the server on `port` (a free one when nil) and returns once it accepts connections.
    init(port: Int? = nil, directory: URL? = nil) async throws {
        self.port = try port ?? Self.freePort()
        self.directory = try directory ?? makeTemporaryDirectory()
        try? FileManager.default.removeItem(at: self.directory.appendingPathComponent("ready"))
        process = Process()
        input = Pipe()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["-c", Self.script, String(self.port), self.directory.path]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let ready = self.directory.appendingPathComponent("ready").path
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: ready) {
            guard process.isRunning else { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        try #require(FileManager.default.fileExists(atPath: ready), "aiosmtpd did not start")
    }

    /// Stops the server (closing its stdin) and waits for it.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// The mails received so far, as text.
    func messages() throws -> [String] {
        let new = directory.appendingPathComponent("mail/new")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: new.path) else { return [] }
        return try names.sorted().map { String(decoding: try Data(contentsOf: new.appendingPathComponent($0)), as: UTF8.self) }
    }

    /// A loopback port nothing listens on right now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        try #require(named == 0)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
